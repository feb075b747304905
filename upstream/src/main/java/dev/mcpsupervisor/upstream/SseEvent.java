package dev.mcpsupervisor.upstream;

/**
 * One dispatched server-sent event.
 *
 * @param type the event type ("message" when the stream named none)
 * @param data the data lines joined with "\n"
 * @param lastEventId the stream's last event id at dispatch time ("" when none was ever set)
 */
public record SseEvent(String type, String data, String lastEventId) {

  static final String DEFAULT_TYPE = "message";
}
