package dev.mcpsupervisor.actors.key;

import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.actors.session.KeyEnvironment;
import dev.mcpsupervisor.actors.session.SessionActor;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.List;
import java.util.function.LongFunction;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * The resources/subscribe and resources/unsubscribe calls of one server key, refcounted by {@link
 * ResourceSubscriptions} on the key actor's thread: this sends what it decides to the sessions and
 * answers the callers. The key actor routes {@link Event}s here and tells it of its sessions' ups,
 * downs and ends.
 */
final class SubscriptionRequests {

  /** What the key actor passes on to {@link #on}. */
  interface Event extends ServerKeyActor.Command {}

  /** The answer to a subscribe or unsubscribe sent on the contexts' behalf. */
  private record Answered(long callId, JsonRpcResponse response) implements Event {}

  /**
   * The context the key's own subscription calls go under: they belong to no one context (a session
   * routes nothing of theirs to a context, since they carry neither progress token nor tag).
   */
  static final String CONTEXT = "dev.mcpsupervisor/resource-subscriptions";

  private final ResourceSubscriptions subscriptions = new ResourceSubscriptions();
  private final KeyEnvironment env;
  private final ActorContext<ServerKeyActor.Command> context;
  private final LongFunction<ActorRef<SessionActor.Command>> sessions;

  /**
   * @param sessions the session of an id still in the key's table, else null
   */
  SubscriptionRequests(
      KeyEnvironment env,
      ActorContext<ServerKeyActor.Command> context,
      LongFunction<ActorRef<SessionActor.Command>> sessions) {
    this.env = env;
    this.context = context;
    this.sessions = sessions;
  }

  /** A subscribe of a context leased on {@code sessionId}, or an unsubscribe. */
  void serve(UpstreamCall call, long sessionId) {
    run(
        McpMethods.RESOURCES_SUBSCRIBE.equals(call.method())
            ? subscriptions.subscribe(call, sessionId)
            : subscriptions.unsubscribe(call));
  }

  void on(Event event) {
    if (event instanceof Answered answered) {
      run(subscriptions.answered(answered.callId(), answered.response()));
    }
  }

  void released(String contextId) {
    run(subscriptions.released(contextId));
  }

  void connectionLost(long sessionId) {
    subscriptions.connectionLost(sessionId);
  }

  void reconnected(long sessionId) {
    run(subscriptions.reconnected(sessionId));
  }

  void sessionGone(long sessionId, String why) {
    run(
        subscriptions.sessionGone(
            sessionId, () -> SupervisorErrors.unavailable(env.serverName(), why)));
  }

  private void run(List<ResourceSubscriptions.Step> steps) {
    for (ResourceSubscriptions.Step step : steps) {
      if (step instanceof ResourceSubscriptions.Answer answer) {
        answer.call().answer(answer.response(), answer.call().delivery());
      } else if (step instanceof ResourceSubscriptions.Send send) {
        send(send);
      }
    }
  }

  private void send(ResourceSubscriptions.Send send) {
    ActorRef<SessionActor.Command> session = sessions.apply(send.sessionId());
    if (session == null) { // it left the table: what waits for the call is answered now
      run(
          subscriptions.answered(
              send.callId(),
              JsonRpcResponse.failure(
                  LongNode.valueOf(send.callId()),
                  SupervisorErrors.unavailableBecause(env.serverName(), "its session closed"))));
      return;
    }
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("uri", send.uri());
    Duration deadline = env.server().requestTimeout();
    context.ask(
        JsonRpcResponse.class,
        session,
        deadline.plus(env.settings().askMargin()),
        replyTo ->
            new SessionActor.Forward(
                UpstreamCall.leased(
                    CONTEXT,
                    env.serverName(),
                    send.callId(),
                    send.method(),
                    params,
                    deadline,
                    replyTo::tell,
                    null)),
        (response, failure) ->
            new Answered(
                send.callId(),
                response != null
                    ? response
                    : JsonRpcResponse.failure(
                        LongNode.valueOf(send.callId()),
                        SupervisorErrors.timeout(
                            send.method(), env.serverName(), deadline.toMillis()))));
  }
}
