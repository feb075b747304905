package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The open exchanges of a {@link StatelessAdapter}, found by the session's request id and by the id
 * of the round in flight upstream; hands out the upstream ids (of the rounds and of the listen
 * stream). Owned by the adapter's strand.
 */
final class StatelessExchanges {

  private long nextUpstreamId = 1;
  private final Map<Long, StatelessExchange> byUpstreamId = new HashMap<>();
  private final Map<String, StatelessExchange> bySessionId = new HashMap<>();

  long nextUpstreamId() {
    return nextUpstreamId++;
  }

  /** The session's request is open until answered, cancelled or cleared. */
  void open(StatelessExchange exchange) {
    bySessionId.put(JsonRpcIds.key(exchange.sessionId()), exchange);
  }

  /** The exchange's next round goes upstream under the id returned. */
  long startRound(StatelessExchange exchange) {
    long id = nextUpstreamId();
    exchange.upstreamId = id;
    exchange.inFlight = true;
    byUpstreamId.put(id, exchange);
    return id;
  }

  /** Whether round {@code upstreamId} still waits for its answer, as {@code exchange}'s. */
  boolean awaits(long upstreamId, StatelessExchange exchange) {
    return byUpstreamId.get(upstreamId) == exchange;
  }

  /** The exchange of the session's request {@code requestId}, or null. */
  StatelessExchange ofSessionRequest(JsonNode requestId) {
    return requestId == null ? null : bySessionId.get(JsonRpcIds.key(requestId));
  }

  /** The exchange whose round {@code upstreamRequestId} is in flight, or null. */
  StatelessExchange ofRound(JsonNode upstreamRequestId) {
    Long id = upstreamRequestId == null ? null : upstreamIdOf(upstreamRequestId);
    return id == null ? null : byUpstreamId.get(id);
  }

  /**
   * The exchange whose round the answer with id {@code answerId} ends, no longer in flight; null
   * when nothing waits for that answer.
   */
  StatelessExchange answered(JsonNode answerId) {
    Long id = upstreamIdOf(answerId);
    StatelessExchange exchange = id == null ? null : byUpstreamId.remove(id);
    if (exchange != null) {
      exchange.inFlight = false;
    }
    return exchange;
  }

  void forget(StatelessExchange exchange) {
    bySessionId.remove(JsonRpcIds.key(exchange.sessionId()), exchange);
    byUpstreamId.remove(exchange.upstreamId, exchange);
  }

  /** Forgets every exchange; returns those that were open. */
  List<StatelessExchange> clear() {
    List<StatelessExchange> open = new ArrayList<>(bySessionId.values());
    bySessionId.clear();
    byUpstreamId.clear();
    return open;
  }

  private static Long upstreamIdOf(JsonNode id) {
    return id != null && id.isIntegralNumber() && id.canConvertToLong() ? id.asLong() : null;
  }
}
