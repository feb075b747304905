package dev.mcpsupervisor.actors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * One caller's request as it travels guardian → key actor → session. Immutable; answered exactly once on
 * {@code replyTo}, always with a response whose id is the {@code callId} (callers put their own id back).
 *
 * @param callId unique within the supervisor; names the call in cancellations and deadline timers
 * @param params the caller's tree, never mutated (the session copies it to rewrite a progress token)
 * @param deadline how long the caller waits, measured from the session's receipt of the call
 */
public record UpstreamCall(
    String context,
    String server,
    long callId,
    String method,
    JsonNode params,
    Duration deadline,
    ActorRef<JsonRpcResponse> replyTo) {

  JsonRpcResponse response(JsonRpcResponse upstream) {
    return upstream.withId(LongNode.valueOf(callId));
  }

  JsonRpcResponse errorResponse(JsonRpcError error) {
    return JsonRpcResponse.failure(LongNode.valueOf(callId), error);
  }

  /** Answers with an error without the call ever reaching a session (unknown server, open circuit, shutdown). */
  void reject(JsonRpcError error, SupervisorObserver observer) {
    replyTo.tell(errorResponse(error));
    observer.requestCompleted(server, method, 0L, SupervisorErrors.kind(error));
  }
}
