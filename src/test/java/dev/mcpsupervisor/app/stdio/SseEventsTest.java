package dev.mcpsupervisor.app.stdio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseEventsTest {

  @Test
  void eventsEndAtBlankLinesWithTheirDataJoinedAndTheirId() {
    List<SseEvents.Event> events =
        feed(
            "id: s-0",
            "retry: 1000",
            "data:",
            "",
            ": a comment",
            "id: s-1",
            "event: message",
            "data: {\"a\":",
            "data:1}",
            "",
            "data: no id",
            "");
    assertEquals(
        List.of(
            new SseEvents.Event("s-0", ""),
            new SseEvents.Event("s-1", "{\"a\":\n1}"),
            new SseEvents.Event(null, "no id")),
        events);
  }

  @Test
  void anEventTheStreamEndsInsideIsNotDispatched() {
    SseEvents events = new SseEvents();
    assertNull(events.line("id: s-2"));
    assertNull(events.line("data: {\"cut\":true}"));
    // no blank line: the stream broke here, and the event (and its id) never counted
  }

  private static List<SseEvents.Event> feed(String... lines) {
    SseEvents events = new SseEvents();
    List<SseEvents.Event> dispatched = new ArrayList<>();
    for (String line : lines) {
      SseEvents.Event event = events.line(line);
      if (event != null) {
        dispatched.add(event);
      }
    }
    return dispatched;
  }
}
