package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseEventParserTest {

  private final List<SseEvent> events = new ArrayList<>();
  private final SseEventParser parser = new SseEventParser(events::add, 1000);

  private void feed(String... lines) {
    for (String line : lines) {
      parser.line(line);
    }
  }

  @Test
  void dataLinesAreJoinedWithNewlines() {
    feed("data: first", "data: second", "data:third", "");
    assertEquals(List.of(new SseEvent("message", "first\nsecond\nthird", "")), events);
  }

  @Test
  void onlyOneSpaceAfterTheColonIsDropped() {
    feed("data:  two spaces ", "");
    assertEquals("  two spaces ".substring(1), events.get(0).data());
  }

  @Test
  void eventTypeAppliesToOneEventOnly() {
    feed("event: endpoint", "data: /message", "", "data: next", "");
    assertEquals("endpoint", events.get(0).type());
    assertEquals("message", events.get(1).type());
  }

  @Test
  void idPersistsAcrossEventsAndEmptyIdResetsIt() {
    feed("id: 7", "data: a", "", "data: b", "", "id", "data: c", "");
    assertEquals(List.of("7", "7", ""), events.stream().map(SseEvent::lastEventId).toList());
    assertEquals("", parser.lastEventId());
  }

  @Test
  void idWithNulIsIgnored() {
    feed("id: good", "id: ba\0d", "data: x", "");
    assertEquals("good", events.get(0).lastEventId());
  }

  @Test
  void retryTakesDigitsOnly() {
    feed("retry: 1500");
    assertEquals(1500, parser.retryMillis());
    feed("retry: 15s", "retry: -1", "retry:", "retry: 99999999999999999999999");
    assertEquals(1500, parser.retryMillis());
  }

  @Test
  void commentsAndUnknownFieldsAreIgnored() {
    feed(": keep-alive", "foo: bar", "data: kept", "");
    assertEquals(List.of(new SseEvent("message", "kept", "")), events);
  }

  @Test
  void blankLineWithoutDataDispatchesNothing() {
    feed("event: ping", "", "", "id: 3", "");
    assertTrue(events.isEmpty());
    feed("data: after", "");
    assertEquals(
        "message",
        events.get(0).type(),
        "the type of an undispatched event does not leak into the next");
  }

  @Test
  void emptyDataFieldDispatchesAnEmptyEvent() {
    feed("data", "");
    assertEquals(List.of(new SseEvent("message", "", "")), events);
  }

  @Test
  void fieldWithoutColonHasAnEmptyValue() {
    feed("data", "data", "");
    assertEquals("\n", events.get(0).data());
  }

  @Test
  void unterminatedEventIsNotDispatched() {
    feed("data: half");
    assertTrue(events.isEmpty());
  }

  @Test
  void leadingByteOrderMarkIsDropped() {
    feed("\uFEFFdata: x", "");
    assertEquals("x", events.get(0).data());
  }

  @Test
  void oversizedEventFailsTheStream() {
    String big = "x".repeat(600);
    feed("data: " + big);
    assertThrows(java.io.UncheckedIOException.class, () -> feed("data: " + big));
  }

  @Test
  void colonInsideTheValueIsKept() {
    feed("data: {\"a\":\"b:c\"}", "");
    assertEquals("{\"a\":\"b:c\"}", events.get(0).data());
  }

  @Test
  void aStreamIsResumedAfterTheLastCompleteEventAPrimingOneIncluded() {
    feed("id: s-0", "retry: 1000", "data:", "");
    assertEquals("s-0", parser.dispatchedEventId(), "the priming event counts");
    feed(": a comment", "id: s-1", "data: {\"a\":", "data:1}", "");
    assertEquals("{\"a\":\n1}", events.get(events.size() - 1).data());
    assertEquals("s-1", parser.dispatchedEventId());
    feed("id: s-2", "data: {\"cut\":true}");
    // no blank line: the stream broke inside the event, which does not count
    assertEquals("s-1", parser.dispatchedEventId());
  }
}
