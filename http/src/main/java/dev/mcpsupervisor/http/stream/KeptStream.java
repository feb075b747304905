package dev.mcpsupervisor.http.stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;

/**
 * One SSE stream kept for resumption: its numbered events, the last ones kept within a count and a
 * byte bound for replay, and the connection carrying it now. Which streams a session keeps, and
 * when, is {@link StreamResumption}'s; plain data on the session's thread.
 */
final class KeptStream {
  final long number;
  final boolean isGet;

  /** The ref the session tells it by (a POST's first connection, the GET stream's current one). */
  final ExchangeSink key;

  private final ArrayDeque<Kept> events = new ArrayDeque<>();

  /** The connection carrying it now; null while its client is away. */
  ExchangeSink connection;

  boolean primed;
  boolean finished;
  long nextEvent = 1;

  /** The last event no longer kept: a resume from before it is refused. */
  long evictedThrough;

  private long bytes;

  private record Kept(long event, String id, ObjectNode json, int bytes) {}

  KeptStream(long number, boolean isGet, ExchangeSink key) {
    this.number = number;
    this.isGet = isGet;
    this.key = key;
    this.connection = key;
  }

  /**
   * Keeps an event for replay, forgetting the oldest beyond {@code maxEvents} or {@code maxBytes}.
   */
  void keep(long event, String id, ObjectNode json, int maxEvents, long maxBytes) {
    int size = sizeOf(json);
    events.addLast(new Kept(event, id, json, size));
    bytes += size;
    while (!events.isEmpty() && (events.size() > maxEvents || bytes > maxBytes)) {
      Kept oldest = events.removeFirst();
      bytes -= oldest.bytes();
      evictedThrough = oldest.event();
    }
  }

  /** Forgets every event kept: a resume from any of them is refused. */
  void evictAll() {
    evictedThrough = nextEvent - 1;
    events.clear();
    bytes = 0;
  }

  /** Tells {@code to} the kept events after {@code after}, with their ids. */
  void replayAfter(long after, ExchangeSink to) {
    for (Kept kept : events) {
      if (kept.event() > after) {
        to.tell(new Exchange.Message(kept.json(), kept.id()));
      }
    }
  }

  /** Sends on the connection carrying it, if its client is there. */
  void send(Exchange.Event event) {
    if (connection != null) {
      connection.tell(event);
    }
  }

  private static int sizeOf(ObjectNode json) {
    try {
      return JsonRpcCodec.mapper().writeValueAsBytes(json).length;
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
