package dev.mcpsupervisor.http.stateless;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one round of a stateless request asks its client, merged from every upstream call waiting in
 * a round of its own: each input under the call's key, or under a key of its own where two calls
 * use the same one; the client's {@code inputResponses} are split back per call under the calls'
 * keys. Plain bookkeeping, not thread-safe: its request guards it.
 *
 * @param <C> what stands for one upstream call
 */
final class RoundInputs<C> {

  /** An input the client is asked for: the call asking, and the key the call knows it by. */
  private record Input<C>(C call, String callKey, CallOutcome.InputRequest request) {}

  /** By the key the client sees, in the order asked. */
  private final Map<String, Input<C>> inputs = new LinkedHashMap<>();

  /** A call waits in a round: what it asks is asked of the client. */
  void ask(C call, Map<String, CallOutcome.InputRequest> asked) {
    asked.forEach(
        (callKey, request) -> {
          String key = callKey;
          for (int n = 2; inputs.containsKey(key); n++) {
            key = callKey + "-" + n;
          }
          inputs.put(key, new Input<>(call, callKey, request));
        });
  }

  /** The round's {@code inputRequests}: key → {@code {method, params}}. */
  ObjectNode inputRequests() {
    ObjectNode asked = JsonRpcCodec.emptyObject();
    inputs.forEach(
        (key, input) -> {
          ObjectNode entry = asked.putObject(key);
          entry.put("method", input.request().method());
          entry.set("params", input.request().params());
        });
    return asked;
  }

  /**
   * The client's retry answers the round: what each waiting call is given, under its own keys (an
   * empty map for a call given nothing: it asks again). The round is over.
   */
  Map<C, Map<String, JsonNode>> answeredBy(JsonRpcRequest retry) {
    Map<String, JsonNode> responses = responsesOf(retry);
    Map<C, Map<String, JsonNode>> byCall = new HashMap<>();
    inputs.forEach(
        (key, input) -> {
          Map<String, JsonNode> given = byCall.computeIfAbsent(input.call(), c -> new HashMap<>());
          JsonNode response = responses.get(key);
          if (response != null) {
            given.put(input.callKey(), response);
          }
        });
    inputs.clear();
    return byCall;
  }

  /** The {@code inputResponses} a request carries, by key (none: empty). */
  static Map<String, JsonNode> responsesOf(JsonRpcRequest request) {
    JsonNode responses = request.params() == null ? null : request.params().get("inputResponses");
    Map<String, JsonNode> given = new HashMap<>();
    if (responses != null && responses.isObject()) {
      responses.fields().forEachRemaining(entry -> given.put(entry.getKey(), entry.getValue()));
    }
    return given;
  }
}
