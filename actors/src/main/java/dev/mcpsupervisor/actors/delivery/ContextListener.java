package dev.mcpsupervisor.actors.delivery;

import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What an embedding caller (or the gateway, for one downstream session) registers for a context to
 * receive what upstream servers send it. Called from actor threads: implementations hand work on
 * and return at once.
 */
public interface ContextListener {

  /**
   * A notification routed to this context: progress for a request this context sent (with the
   * caller's own progress token restored), logging messages, list_changed and resource-updated
   * notifications of a session this context uses.
   */
  void onNotification(String server, JsonRpcNotification notification);

  /**
   * A server-to-client request (sampling, elicitation, roots) from an upstream: for the request in
   * flight it belongs to, or, with none in flight, for the context that last sent the session a
   * notification (else any leased context with a listener). The request id is the supervisor's own;
   * answer with a response for that id (its id is replaced on the way back). A failed stage is
   * answered upstream with an error.
   */
  CompletionStage<JsonRpcResponse> onServerRequest(String server, JsonRpcRequest request);

  /**
   * {@link #onNotification(String, JsonRpcNotification)} with the call it belongs to: {@code
   * relatedTag} is the tag the caller gave that call ({@code SessionSupervisor.request(.., tag)})
   * when the notification is progress of that call or logging the transport sent on that call's
   * response stream; null when it concerns the whole session. By default the tag is ignored.
   */
  default void onNotification(String server, JsonRpcNotification notification, String relatedTag) {
    onNotification(server, notification);
  }

  /**
   * {@link #onServerRequest(String, JsonRpcRequest)} with the call the request was attributed to:
   * {@code relatedTag} is that call's tag (the call the transport named, else the oldest call in
   * flight on the session), or null when no call of this context is in flight (e.g. roots/list
   * after this context's roots/list_changed). By default the tag is ignored.
   */
  default CompletionStage<JsonRpcResponse> onServerRequest(
      String server, JsonRpcRequest request, String relatedTag) {
    return onServerRequest(server, request);
  }

  /**
   * A listener that is an actor's own: the context's deliveries go straight to that actor's {@link
   * #mailbox()} (commonly a message adapter) instead of a {@link ContextDelivery} actor per
   * context, and the actor passes each to {@link ContextDelivery#deliver} with this listener (after
   * its context is released, to {@link ContextDelivery#deliverReleased}). Its mailbox keeps the
   * same order a delivery actor's does. For a context's one listener, registered before its first
   * call (a later registration for the context only replaces a delivery actor's listener); answers
   * arriving after the actor stopped are dropped, so it stops only once it waits for none.
   */
  interface OwnMailbox extends ContextListener {
    ActorRef<ContextDelivery.Command> mailbox();
  }
}
