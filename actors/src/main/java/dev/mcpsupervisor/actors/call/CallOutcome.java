package dev.mcpsupervisor.actors.call;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where a call of {@link dev.mcpsupervisor.actors.SessionSupervisor#call} stands: {@link Complete}
 * with its answer, or {@link InputRequired} — the upstream asked the caller something during the
 * call (as an MCP 2026-07-28 server answers {@code input_required}), and the call waits upstream,
 * under its deadline, for the caller to {@link InputRequired#answer answer} or {@link
 * InputRequired#cancel cancel}.
 */
public sealed interface CallOutcome permits CallOutcome.Complete, CallOutcome.InputRequired {

  /**
   * The call's answer: the upstream's result, or a JSON-RPC error (the upstream's, or the
   * supervisor's: timeout, cancelled, session lost...). Its id is the supervisor's call id.
   */
  record Complete(JsonRpcResponse response) implements CallOutcome {}

  /**
   * One server request waiting for the caller's answer: {@code sampling/createMessage}, {@code
   * elicitation/create} or {@code roots/list}, with the upstream's params.
   */
  record InputRequest(String method, JsonNode params) {}

  /**
   * A round of the call: the server requests waiting for the caller, by key. Answer it once (a
   * second {@link #answer} of the same round gets the first one's stage); answers go upstream and
   * the stage completes with what comes next — the call's answer, or another round.
   */
  final class InputRequired implements CallOutcome {

    private final int round;
    private final Map<String, InputRequest> inputRequests;
    private final RoundTripCall.Handle call;
    private final AtomicReference<CompletableFuture<CallOutcome>> next = new AtomicReference<>();

    InputRequired(int round, Map<String, InputRequest> inputRequests, RoundTripCall.Handle call) {
      this.round = round;
      this.inputRequests = Map.copyOf(inputRequests);
      this.call = call;
    }

    /** 1 for the call's first round, then 2, 3... */
    public int round() {
      return round;
    }

    /** Key → the request waiting under it; answer each under its key. */
    public Map<String, InputRequest> inputRequests() {
      return inputRequests;
    }

    /** The rounds's requests as a 2026-07-28 {@code inputRequests} object. */
    public ObjectNode inputRequestsJson() {
      ObjectNode json = JsonRpcCodec.emptyObject();
      inputRequests.forEach(
          (key, request) -> {
            ObjectNode entry = json.putObject(key);
            entry.put("method", request.method());
            entry.set("params", request.params());
          });
      return json;
    }

    /**
     * Sends the answers upstream: key → the result for that request (an {@code ElicitResult},
     * {@code CreateMessageResult} or {@code ListRootsResult} as JSON). Unknown keys are ignored; a
     * request left without a well-formed answer is asked again in the next round. Completes with
     * the call's answer or its next round; cancelling the stage cancels the call.
     */
    public CompletionStage<CallOutcome> answer(Map<String, JsonNode> responses) {
      Objects.requireNonNull(responses, "responses");
      CompletableFuture<CallOutcome> fresh = new CompletableFuture<>();
      if (!next.compareAndSet(null, fresh)) {
        return next.get();
      }
      call.answer(round, responses, fresh);
      return fresh;
    }

    /**
     * Gives the call up: {@code notifications/cancelled} goes upstream, every request waiting is
     * refused there, and the stage completes with the call's answer (the "cancelled" error, unless
     * the answer came first).
     */
    public CompletionStage<CallOutcome> cancel() {
      return call.cancel();
    }

    /**
     * Completes with the call's answer, whatever becomes of this round: for a caller that leaves a
     * round unanswered and wants to see the call end (at its deadline, or by another's cancel).
     */
    public CompletionStage<Complete> finalAnswer() {
      return call.finalAnswer();
    }
  }
}
