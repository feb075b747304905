package dev.mcpsupervisor.actors.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.upstream.Failures;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Puts a session's messages on its link without waiting: a send that succeeds sends nothing back
 * (the hot path), one that fails comes back to the session as {@link SendFailed}. Separate from
 * {@link SessionCalls} because how a message reaches the connection, and how its failure finds the
 * way back to the actor, is independent of which calls are held and when they go.
 */
final class CallSender {

  /**
   * A send on {@code link} failed: only a failure comes back (no message per successful send, the
   * hot path).
   */
  record SendFailed(ActorRef<UpstreamLink.Command> link, long upstreamId, String reason)
      implements SessionActor.Command {}

  private final ActorRef<SessionActor.Command> self;

  CallSender(ActorRef<SessionActor.Command> self) {
    this.self = self;
  }

  /** Sends a request under the session's own {@code upstreamId}; answers that id. */
  long request(SessionCalls.Link link, long upstreamId, String method, JsonNode params) {
    transmit(link, new JsonRpcRequest(LongNode.valueOf(upstreamId), method, params), upstreamId);
    return upstreamId;
  }

  /** Tells the upstream to stop working on the request sent as {@code upstreamId}. */
  void cancelled(SessionCalls.Link link, long upstreamId, String reason) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("requestId", upstreamId);
    params.put("reason", reason);
    transmit(link, new JsonRpcNotification(McpMethods.NOTIFICATION_CANCELLED, params), 0);
  }

  /**
   * Sends a message that is no request of the session's (a notification, a server request's
   * answer).
   */
  void message(SessionCalls.Link link, JsonRpcMessage message) {
    transmit(link, message, 0);
  }

  private void transmit(SessionCalls.Link link, JsonRpcMessage message, long upstreamId) {
    try {
      link.connection()
          .send(message)
          .whenComplete(
              (done, failure) -> {
                if (failure != null) {
                  self.tell(new SendFailed(link.ref(), upstreamId, Failures.describe(failure)));
                }
              });
    } catch (RuntimeException e) {
      self.tell(new SendFailed(link.ref(), upstreamId, Failures.describe(e)));
    }
  }
}
