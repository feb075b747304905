package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.protocol.InputRequests;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The input rounds of a {@link StatelessAdapter}'s exchanges, relayed to its session: an {@code
 * input_required} result's input requests become server-to-client requests to the session, under
 * ids of their own and related to the request they serve, each naming the server's key in {@code
 * _meta} ({@link InputRequests#INPUT_KEY_META}) so that a 2026-07-28 caller's round shows the
 * server's keys; once the session answered them all, the exchange is retried with the answers by
 * key and the server's state. Runs on the adapter's strand.
 */
final class InputRoundRelay {

  private static final Logger log = LoggerFactory.getLogger(InputRoundRelay.class);

  /** More rounds than this for one request: the server is looping, the request fails. */
  static final int MAX_ROUNDS = 16;

  private static final String ID_PREFIX = "input-";

  /** What the adapter does when a round is over. */
  interface Outcome {
    /** Every input is answered (or none was asked): send the request again with {@code params}. */
    void retry(StatelessExchange exchange, ObjectNode params);

    /** The exchange ends with {@code response} (an error) for the session. */
    void answer(StatelessExchange exchange, JsonRpcResponse response);
  }

  private final ConnectionEvents events;
  private final Outcome outcome;
  private final Map<String, StatelessExchange> byInputId = new HashMap<>();
  private long nextInputId = 1;

  InputRoundRelay(ConnectionEvents events, Outcome outcome) {
    this.events = events;
    this.outcome = outcome;
  }

  /** The server answered the exchange's round with {@code result}, an input_required one. */
  void ask(StatelessExchange exchange, JsonNode result) {
    if (++exchange.round > MAX_ROUNDS) {
      outcome.answer(
          exchange,
          StatelessMessages.error(
              exchange.sessionId(),
              JsonRpcErrorCodes.INTERNAL_ERROR,
              "the server still asked for input after " + MAX_ROUNDS + " rounds"));
      return;
    }
    exchange.requestState = result.get(StatelessMessages.REQUEST_STATE);
    exchange.inputResponses = JsonRpcCodec.emptyObject();
    List<JsonRpcRequest> asks = new ArrayList<>();
    for (Map.Entry<String, JsonNode> input :
        result.path(StatelessMessages.INPUT_REQUESTS).properties()) {
      JsonNode method = input.getValue().path("method");
      if (!method.isTextual()) {
        withdraw(exchange, "the server sent a malformed input request");
        outcome.answer(
            exchange,
            StatelessMessages.error(
                exchange.sessionId(),
                JsonRpcErrorCodes.INTERNAL_ERROR,
                "the server sent a malformed input request \"" + input.getKey() + "\""));
        return;
      }
      String localId = ID_PREFIX + nextInputId++;
      exchange.awaitedInputs.put(localId, input.getKey());
      byInputId.put(localId, exchange);
      asks.add(
          new JsonRpcRequest(
              TextNode.valueOf(localId),
              method.textValue(),
              InputRequests.withKey(input.getValue().get("params"), input.getKey())));
    }
    if (asks.isEmpty()) {
      retry(exchange); // nothing to ask: the server only wants its state back
    } else {
      asks.forEach(ask -> events.message(ask, exchange.sessionId()));
    }
  }

  /** The session answered one of the input requests. */
  void answered(JsonRpcResponse answer) {
    String localId = answer.id().isTextual() ? answer.id().textValue() : null;
    StatelessExchange exchange = localId == null ? null : byInputId.remove(localId);
    if (exchange == null) {
      log.debug("{}: dropped an answer to no input request: id {}", events.name(), answer.id());
      return;
    }
    String key = exchange.awaitedInputs.remove(localId);
    if (answer.isError()) {
      withdraw(exchange, "another input of the same request failed");
      JsonRpcError error = answer.error();
      outcome.answer(
          exchange,
          JsonRpcResponse.failure(
              exchange.sessionId(),
              new JsonRpcError(
                  error.code(),
                  "input request \"" + key + "\" failed: " + error.message(),
                  error.data())));
      return;
    }
    exchange.inputResponses.set(key, answer.result());
    if (exchange.awaitedInputs.isEmpty()) {
      retry(exchange);
    }
  }

  private void retry(StatelessExchange exchange) {
    outcome.retry(
        exchange,
        StatelessMessages.retryParams(
            exchange.params, exchange.inputResponses, exchange.requestState));
  }

  /** Tells the session that input requests it was asked are void (under the ids it was shown). */
  void withdraw(StatelessExchange exchange, String reason) {
    for (String localId : exchange.awaitedInputs.keySet()) {
      byInputId.remove(localId);
      ObjectNode params = JsonRpcCodec.emptyObject();
      params.put("requestId", localId);
      params.put("reason", reason);
      events.message(
          new JsonRpcNotification(McpMethods.NOTIFICATION_CANCELLED, params), exchange.sessionId());
    }
    exchange.awaitedInputs.clear();
  }

  /** The connection is gone: nothing the session was asked can be used any more. */
  void clear() {
    byInputId.clear();
  }
}
