package dev.mcpsupervisor.app.stdio;

/**
 * The events of a Server-Sent Events stream, fed line by line: the fields MCP's Streamable HTTP
 * uses ({@code data}, {@code id}); comments and other fields are skipped. An event is dispatched at
 * its blank line, and only then does its id become the stream's last event id, so a stream that
 * breaks inside an event is resumed before it; an event the stream ends inside is dropped, as the
 * SSE rules say. Plain class, one per stream.
 */
final class SseEvents {

  /**
   * @param id the event's id, or null when it set none
   * @param data its data lines joined by newlines; empty for an event without data (a priming one)
   */
  record Event(String id, String data) {}

  private final StringBuilder data = new StringBuilder();
  private boolean hasData;
  private String id;

  /** Takes one line (without its line end); the event it completes, or null. */
  Event line(String line) {
    if (line.isEmpty()) {
      Event event = new Event(id, data.toString());
      data.setLength(0);
      hasData = false;
      id = null;
      return event;
    }
    if (line.startsWith("data:")) {
      if (hasData) {
        data.append('\n');
      }
      data.append(value(line, "data:"));
      hasData = true;
    } else if (line.startsWith("id:")) {
      id = value(line, "id:");
    }
    return null;
  }

  /** A field's value: after the colon, without one leading space. */
  private static String value(String line, String field) {
    String value = line.substring(field.length());
    return value.startsWith(" ") ? value.substring(1) : value;
  }
}
