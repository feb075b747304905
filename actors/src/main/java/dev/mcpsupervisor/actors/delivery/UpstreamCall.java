package dev.mcpsupervisor.actors.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.base.SupervisorObserver;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * One caller's request as it travels router → key actor → session. Immutable; answered exactly once
 * on {@code replyTo}, always with a response whose id is the {@code callId} (callers put their own
 * id back). Node-local (it carries a callback): the reply needs no actor of its own, such as an
 * ask's, and no delivery when the caller is not an actor.
 *
 * @param callId unique within the supervisor; names the call in cancellations and deadline timers
 * @param params the caller's tree, never mutated (the session copies it to rewrite a progress
 *     token)
 * @param deadline how long the caller waits, measured from the session's receipt of the call
 * @param replyTo gets the answer, on the answering actor's thread: it must return at once (an
 *     actor's {@code tell}, a future's {@code complete})
 * @param tag the caller's own name for the call, handed back with notifications and server requests
 *     related to it; or null
 * @param delivery the context's {@link ContextDelivery} (set by the router when the context has a
 *     listener): the answer then goes through it, after the notifications sent before it; null:
 *     straight to {@code replyTo}
 * @param callDelivery the call's own delivery (a {@link
 *     dev.mcpsupervisor.actors.call.RoundTripCall}), or null: when set, everything the session has
 *     for this call — its progress and logs, the server requests attributed to it, its answer —
 *     goes there instead of to the context's delivery
 * @param caller who calls: a leaseless caller's context is not remembered by the router, and the
 *     key actor serves its call without leasing a pooled session; a 2026-07-28 caller is served by
 *     its era's key
 * @param answersRoots its caller gives roots of its own (a round-trip call whose caller declared
 *     the roots capability): a {@code roots/list} during the call may be its
 */
public record UpstreamCall(
    String context,
    String server,
    long callId,
    String method,
    JsonNode params,
    Duration deadline,
    Consumer<JsonRpcResponse> replyTo,
    String tag,
    ActorRef<ContextDelivery.Command> delivery,
    ActorRef<ContextDelivery.Command> callDelivery,
    CallerKind caller,
    boolean answersRoots) {

  /**
   * A call that takes (or uses) its context's lease, answered straight to {@code replyTo}: no
   * delivery, and its caller gives no roots of its own.
   */
  public static UpstreamCall leased(
      String context,
      String server,
      long callId,
      String method,
      JsonNode params,
      Duration deadline,
      Consumer<JsonRpcResponse> replyTo,
      String tag) {
    return new UpstreamCall(
        context,
        server,
        callId,
        method,
        params,
        deadline,
        replyTo,
        tag,
        null,
        null,
        CallerKind.LEASED,
        false);
  }

  public UpstreamCall withDelivery(ActorRef<ContextDelivery.Command> contextDelivery) {
    return new UpstreamCall(
        context,
        server,
        callId,
        method,
        params,
        deadline,
        replyTo,
        tag,
        contextDelivery,
        callDelivery,
        caller,
        answersRoots);
  }

  /** The same call with less time left (it waited before it reached a session). */
  public UpstreamCall withDeadline(Duration left) {
    return new UpstreamCall(
        context,
        server,
        callId,
        method,
        params,
        left,
        replyTo,
        tag,
        delivery,
        callDelivery,
        caller,
        answersRoots);
  }

  /** The same call answered elsewhere: to {@code answerTo}, and what concerns it to {@code own}. */
  public UpstreamCall withReplies(
      Consumer<JsonRpcResponse> answerTo, ActorRef<ContextDelivery.Command> own) {
    return new UpstreamCall(
        context,
        server,
        callId,
        method,
        params,
        deadline,
        answerTo,
        tag,
        delivery,
        own,
        caller,
        answersRoots);
  }

  /** The call holds no lease. */
  public boolean leaseless() {
    return caller.leaseless();
  }

  public JsonRpcResponse response(JsonRpcResponse upstream) {
    return upstream.withId(LongNode.valueOf(callId));
  }

  public JsonRpcResponse errorResponse(JsonRpcError error) {
    return JsonRpcResponse.failure(LongNode.valueOf(callId), error);
  }

  /**
   * The one way a call is answered: through the context's delivery actor if it has one (after its
   * notifications).
   */
  public void answer(JsonRpcResponse response, ActorRef<ContextDelivery.Command> through) {
    if (through == null) {
      replyTo.accept(response);
    } else {
      through.tell(new ContextDelivery.Answer(response, replyTo));
    }
  }

  /**
   * Answers with an error without the call ever reaching a session (unknown server, open circuit,
   * shutdown).
   */
  public void reject(JsonRpcError error, SupervisorObserver observer) {
    observer.requestCompleted(server, method, 0L, SupervisorErrors.kind(error));
    answer(errorResponse(error), delivery);
  }
}
