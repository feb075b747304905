package dev.mcpsupervisor.http.stream;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The events of one stream waiting for a client that reads slowly, bounded by their bytes (a count
 * says nothing: one event can be a megabyte). An event that does not fit is refused, never an older
 * one dropped: a dropped event can be a response, so the caller ends the stream instead. An event
 * that comes while nothing waits is always taken, however large, so one big response still reaches
 * a client that reads.
 */
final class EventBuffer {

  /** What an event without JSON (priming, opened, refused) is counted as. */
  static final long SMALL_EVENT_BYTES = 64;

  private record Waiting(Exchange.Event event, long bytes) {}

  private final long maxBytes;
  private final Deque<Waiting> waiting = new ArrayDeque<>();
  private long bytes;

  EventBuffer(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /**
   * Keeps {@code event} at the end, or returns false when it would take the buffer past its bound.
   */
  boolean offer(Exchange.Event event) {
    long size = bytesOf(event);
    if (!waiting.isEmpty() && bytes + size > maxBytes) {
      return false;
    }
    waiting.addLast(new Waiting(event, size));
    bytes += size;
    return true;
  }

  /** The oldest waiting event, or null. */
  Exchange.Event poll() {
    Waiting first = waiting.pollFirst();
    if (first == null) {
      return null;
    }
    bytes -= first.bytes();
    return first.event();
  }

  boolean isEmpty() {
    return waiting.isEmpty();
  }

  long bytes() {
    return bytes;
  }

  /** The bytes of JSON an event carries (as the client will read them). */
  static long bytesOf(Exchange.Event event) {
    if (event instanceof Exchange.Message message) {
      long id = message.eventId() == null ? 0 : message.eventId().length();
      return jsonBytes(message.json()) + id;
    }
    if (event instanceof Exchange.Complete complete) {
      return complete.responses().stream().mapToLong(EventBuffer::jsonBytes).sum()
          + SMALL_EVENT_BYTES;
    }
    return SMALL_EVENT_BYTES;
  }

  private static long jsonBytes(JsonNode json) {
    CountingStream counter = new CountingStream();
    try {
      JsonRpcCodec.mapper().writeValue(counter, json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return counter.count;
  }

  /** Counts what is written, keeps nothing. */
  private static final class CountingStream extends OutputStream {
    private long count;

    @Override
    public void write(int b) {
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      count += len;
    }
  }
}
