package dev.mcpsupervisor.upstream;

import java.io.UncheckedIOException;
import java.util.function.Consumer;

/**
 * Turns the lines of a {@code text/event-stream} body into events, following the HTML "server-sent
 * events" interpretation rules: {@code data} lines accumulate (joined by "\n"), {@code event} names
 * the type, {@code id} sets the last event id (ignored when it contains NUL), {@code retry} sets
 * the reconnection delay (digits only), lines starting with ':' are comments, unknown fields are
 * ignored, and a blank line dispatches. An event without data is not dispatched. Lines come already
 * split (on CR, LF or CRLF); a leading byte order mark is dropped. Not thread-safe: one parser per
 * stream. Parses the upstreams' streams here, and the stdio front's.
 */
public final class SseEventParser {

  private final Consumer<SseEvent> sink;
  private final int maxDataChars;
  private final StringBuilder data = new StringBuilder();
  private boolean hasData;
  private String type = "";
  private String lastEventId = "";
  private String dispatchedEventId = "";
  private long retryMillis = -1;
  private boolean firstLine = true;

  /**
   * @param sink receives each dispatched event, on the caller's thread
   * @param maxDataChars the largest event data accepted; a bigger event fails the stream (an {@link
   *     UncheckedIOException} around a {@link MessageTooLargeException})
   */
  public SseEventParser(Consumer<SseEvent> sink, int maxDataChars) {
    this.sink = sink;
    this.maxDataChars = maxDataChars;
  }

  /** Feeds one line, without its terminator. */
  public void line(String line) {
    if (firstLine) {
      firstLine = false;
      if (line.startsWith("\uFEFF")) {
        line = line.substring(1);
      }
    }
    if (line.isEmpty()) {
      dispatch();
      return;
    }
    if (line.charAt(0) == ':') {
      return;
    }
    int colon = line.indexOf(':');
    String field = colon < 0 ? line : line.substring(0, colon);
    String value = "";
    if (colon >= 0) {
      int valueStart = colon + 1;
      if (valueStart < line.length() && line.charAt(valueStart) == ' ') {
        valueStart++;
      }
      value = line.substring(valueStart);
    }
    field(field, value);
  }

  private void field(String field, String value) {
    switch (field) {
      case "event" -> type = value;
      case "data" -> appendData(value);
      case "id" -> {
        if (value.indexOf('\0') < 0) {
          lastEventId = value;
        }
      }
      case "retry" -> {
        if (!value.isEmpty() && value.chars().allMatch(c -> c >= '0' && c <= '9')) {
          try {
            retryMillis = Long.parseLong(value);
          } catch (NumberFormatException tooLarge) {
            // more digits than a long holds: ignored like any other unusable value
          }
        }
      }
      default -> {
        // unknown fields are ignored
      }
    }
  }

  private void appendData(String value) {
    if (data.length() + value.length() + 1 > maxDataChars) {
      throw new UncheckedIOException(
          new MessageTooLargeException("server-sent event", maxDataChars));
    }
    if (hasData) {
      data.append('\n');
    }
    data.append(value);
    hasData = true;
  }

  private void dispatch() {
    dispatchedEventId = lastEventId;
    if (hasData) {
      sink.accept(
          new SseEvent(
              type.isEmpty() ? SseEvent.DEFAULT_TYPE : type, data.toString(), lastEventId));
    }
    data.setLength(0);
    hasData = false;
    type = "";
  }

  /**
   * The id of the last event seen ("" when none): sent as {@code Last-Event-ID} when reconnecting.
   */
  String lastEventId() {
    return lastEventId;
  }

  /**
   * The last event id as of the last blank line ("" when none): what a stream that breaks now is
   * resumed after. Unlike {@link #lastEventId}, an event the stream broke inside does not count; an
   * event without data (a priming event) does, though it is not dispatched.
   */
  public String dispatchedEventId() {
    return dispatchedEventId;
  }

  /** The reconnection delay the server asked for with {@code retry}, or -1 when it did not. */
  long retryMillis() {
    return retryMillis;
  }
}
