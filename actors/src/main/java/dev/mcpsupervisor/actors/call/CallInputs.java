package dev.mcpsupervisor.actors.call;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.call.CallOptions.ClientCapability;
import dev.mcpsupervisor.protocol.InputRequests;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The server requests of one call that wait for its caller's answer, by the key the caller sees
 * them under ({@link InputRequests}): what arrives is refused when the caller did not declare the
 * capability it needs, else waits for the next round; the caller's answers by key go back to the
 * session that asked, under the id the session gave the request. Plain bookkeeping on the call's
 * thread.
 *
 * @param <S> where a server request's answer goes (the session that sent it; anything in tests)
 */
final class CallInputs<S> {

  /** An answer to send to {@code session} for the server request it knows as {@code localId}. */
  record Reply<S>(S session, String localId, JsonRpcResponse response) {}

  /** What became of a server request that arrived: a reply at once, or a wait for the caller. */
  sealed interface Arrival<S> {}

  record Replied<S>(Reply<S> reply) implements Arrival<S> {}

  record Waiting<S>(String key) implements Arrival<S> {}

  /**
   * Refused for want of a capability the call cannot go on without ({@link
   * CallOptions#endsWithoutCapability}): the call ends with -32021 naming {@code capability}.
   */
  record Missing<S>(Reply<S> refusal, String capability) implements Arrival<S> {}

  private record Input<S>(JsonRpcRequest request, S session) {}

  private final String server;
  private final CallOptions options;
  private final InputRequests.Keys keys = new InputRequests.Keys();
  private final Map<String, Input<S>> waiting = new LinkedHashMap<>();

  CallInputs(String server, CallOptions options) {
    this.server = server;
    this.options = options;
  }

  /**
   * A server request attributed to the call ({@code request.id()} is the session's local id): ping
   * is answered, a request the caller declared no capability for is refused (and may end the call),
   * one the caller answered already ({@link CallOptions#inputResponses}) is answered, the rest
   * waits.
   */
  Arrival<S> arrived(JsonRpcRequest request, S session) {
    String localId = request.id().asText();
    if (McpMethods.PING.equals(request.method())) {
      return new Replied<>(
          new Reply<>(
              session, localId, JsonRpcResponse.success(request.id(), JsonRpcCodec.emptyObject())));
    }
    ClientCapability needed = ClientCapability.neededBy(request.method());
    if (needed == null || !options.answers(needed)) {
      String why =
          needed == null
              ? "the caller answers only sampling, elicitation and roots requests"
              : "the caller did not declare the " + needed.wireName() + " capability";
      Reply<S> refused = new Reply<>(session, localId, refusal(request, why));
      return needed != null && needed != ClientCapability.ROOTS && options.endsWithoutCapability()
          ? new Missing<>(refused, needed.wireName())
          : new Replied<>(refused);
    }
    String key = keys.keyOf(request, waiting::containsKey);
    JsonNode given = options.inputResponses().get(key);
    if (InputRequests.isAnswerTo(request.method(), given)) {
      return new Replied<>(
          new Reply<>(session, localId, JsonRpcResponse.success(request.id(), given)));
    }
    waiting.put(key, new Input<>(request, session));
    return new Waiting<>(key);
  }

  boolean anyWaiting() {
    return !waiting.isEmpty();
  }

  int size() {
    return waiting.size();
  }

  /** Everything still waiting, as a round shows it: key → method and params (key removed). */
  Map<String, CallOutcome.InputRequest> round() {
    Map<String, CallOutcome.InputRequest> round = new LinkedHashMap<>();
    waiting.forEach(
        (key, input) -> {
          ObjectNode shown = InputRequests.inputRequest(input.request());
          round.put(
              key, new CallOutcome.InputRequest(input.request().method(), shown.get("params")));
        });
    return Collections.unmodifiableMap(round);
  }

  /**
   * The caller's answers by key: each well-formed answer to a waiting input is a reply; keys it
   * does not know are ignored, and an input without a well-formed answer stays waiting (it is asked
   * again).
   */
  List<Reply<S>> answer(Map<String, JsonNode> responses) {
    List<Reply<S>> replies = new ArrayList<>();
    Iterator<Map.Entry<String, Input<S>>> entries = waiting.entrySet().iterator();
    while (entries.hasNext()) {
      Map.Entry<String, Input<S>> entry = entries.next();
      JsonRpcRequest asked = entry.getValue().request();
      JsonNode response = responses.get(entry.getKey());
      if (InputRequests.isAnswerTo(asked.method(), response)) {
        replies.add(
            new Reply<>(
                entry.getValue().session(),
                asked.id().asText(),
                JsonRpcResponse.success(asked.id(), response)));
        entries.remove();
      }
    }
    return replies;
  }

  /** The upstream withdrew the request it sent under {@code localId}: nobody answers it now. */
  void withdrawn(String localId) {
    waiting.values().removeIf(input -> input.request().id().asText().equals(localId));
  }

  /** The call ends: every input still waiting is refused, so no upstream waits for it. */
  List<Reply<S>> refuseAll(String why) {
    List<Reply<S>> refusals = new ArrayList<>();
    waiting
        .values()
        .forEach(
            input ->
                refusals.add(
                    new Reply<>(
                        input.session(),
                        input.request().id().asText(),
                        refusal(input.request(), why))));
    waiting.clear();
    return refusals;
  }

  private JsonRpcResponse refusal(JsonRpcRequest request, String why) {
    return JsonRpcResponse.failure(
        request.id(), SupervisorErrors.noClient(server, request.method(), why));
  }
}
