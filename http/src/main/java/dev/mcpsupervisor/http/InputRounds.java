package dev.mcpsupervisor.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.SupervisorErrors;
import dev.mcpsupervisor.protocol.InputRequests;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The bridge from a session-era upstream's server requests to a 2026-07-28 client's multi
 * round-trip: each {@code sampling/createMessage}, {@code elicitation/create} or {@code roots/list}
 * the upstream sends during the client's request waits here under a key, goes to the client inside
 * an {@code input_required} result, and is answered upstream from the {@code inputResponses} of the
 * client's retry. Keys, capabilities and answers follow {@link InputRequests}. Plain bookkeeping on
 * the session's thread; the session times the rounds and seals their states.
 */
final class InputRounds {

  /** What became of a server request that arrived. */
  enum Arrival {
    /**
     * Done with at once: ping answered, the client's request held the answer already, or a request
     * no 2026-07-28 client answers was refused.
     */
    HANDLED,
    /** Waits for the client's answer: it goes out in the next input_required round. */
    WAITING,
    /**
     * Refused upstream: the client did not declare the sampling or elicitation capability the call
     * needs.
     */
    MISSING_CAPABILITY
  }

  private record Waiting(DownstreamSession.UpstreamRequest upstream, ObjectNode inputRequest) {}

  private final Map<String, Waiting> waiting = new LinkedHashMap<>();
  private final InputRequests.Keys keys = new InputRequests.Keys();
  private int round;
  private boolean out;

  /**
   * A server request for the client of {@code request}, whose own {@code inputResponses} may hold
   * its answer already (a client may retry without a state).
   */
  Arrival arrived(
      DownstreamSession.UpstreamRequest upstream,
      JsonNode clientCapabilities,
      JsonRpcRequest request) {
    JsonRpcRequest asked = upstream.request();
    if (McpMethods.PING.equals(asked.method())) {
      upstream.replyTo().tell(JsonRpcResponse.success(asked.id(), JsonRpcCodec.emptyObject()));
      return Arrival.HANDLED;
    }
    String capability = InputRequests.requiredCapability(asked.method());
    if (capability == null) {
      ServerRequestBridge.refuse(
          upstream, "a 2026-07-28 client answers only sampling, elicitation and roots requests");
      return Arrival.HANDLED;
    }
    if (!clientCapabilities.has(capability)) {
      ServerRequestBridge.refuse(
          upstream, "the client did not declare the " + capability + " capability");
      // servers ask for roots unprompted (at start, on a change), and over stdio nothing says which
      // call asked: a refusal upstream is what a client without roots gives, the call goes on
      return McpMethods.ROOTS_LIST.equals(asked.method())
          ? Arrival.HANDLED
          : Arrival.MISSING_CAPABILITY;
    }
    String key = keys.keyOf(asked, waiting::containsKey);
    Waiting input = new Waiting(upstream, InputRequests.inputRequest(asked));
    JsonNode given = inputResponsesOf(request).get(key);
    if (answers(input, given)) {
      return Arrival.HANDLED;
    }
    waiting.put(key, input);
    return Arrival.WAITING;
  }

  /** Whether a round has inputs to ask for. */
  boolean anyWaiting() {
    return !waiting.isEmpty();
  }

  /** Whether the client holds an input_required result and the call waits for its retry. */
  boolean isOut() {
    return out;
  }

  int round() {
    return round;
  }

  /**
   * A new round goes out: the input_required result asking for every input still waiting, under
   * {@code requestState} (sealed for the round this returns via {@link #round()}).
   */
  ObjectNode nextRound(IntFunction<String> requestStateOfRound) {
    round++;
    out = true;
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.put("resultType", "input_required");
    ObjectNode inputRequests = result.putObject("inputRequests");
    waiting.forEach((key, input) -> inputRequests.set(key, input.inputRequest()));
    result.put("requestState", requestStateOfRound.apply(round));
    return result;
  }

  /**
   * The client retried with its answers: those that answer a waiting input go upstream, the rest is
   * ignored (the spec's "ignore what you do not need"); what is still unanswered is asked again.
   */
  void retried(JsonRpcRequest retry) {
    out = false;
    JsonNode responses = inputResponsesOf(retry);
    Iterator<Map.Entry<String, Waiting>> entries = waiting.entrySet().iterator();
    while (entries.hasNext()) {
      Map.Entry<String, Waiting> entry = entries.next();
      if (answers(entry.getValue(), responses.get(entry.getKey()))) {
        entries.remove();
      }
    }
  }

  /** The upstream withdrew a request (notifications/cancelled): no client answer is needed. */
  void withdrawn(String server, JsonNode upstreamId) {
    waiting
        .values()
        .removeIf(
            input ->
                input.upstream().server().equals(server)
                    && input.upstream().request().id().equals(upstreamId));
  }

  /** The call ends: every request still waiting is answered upstream with an error. */
  void failAll(String why) {
    waiting
        .values()
        .forEach(
            input ->
                input
                    .upstream()
                    .replyTo()
                    .tell(
                        JsonRpcResponse.failure(
                            input.upstream().request().id(),
                            SupervisorErrors.noClient(
                                input.upstream().server(),
                                input.upstream().request().method(),
                                why))));
    waiting.clear();
  }

  /** Answers upstream when {@code response} is a well-formed answer to the input's method. */
  private static boolean answers(Waiting input, JsonNode response) {
    JsonRpcRequest asked = input.upstream().request();
    if (!InputRequests.isAnswerTo(asked.method(), response)) {
      return false;
    }
    input.upstream().replyTo().tell(JsonRpcResponse.success(asked.id(), response));
    return true;
  }

  private static JsonNode inputResponsesOf(JsonRpcRequest request) {
    JsonNode responses = request.params() == null ? null : request.params().get("inputResponses");
    return responses != null && responses.isObject() ? responses : JsonRpcCodec.emptyObject();
  }
}
