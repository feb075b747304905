package dev.mcpsupervisor.http.session;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The last two states of a routed session, a {@link DownstreamSession} or a {@link ListenSession}
 * alike once it ended: {@link #ending} (the supervisor releases its context's leases; then whoever
 * asked for the end hears) → {@link #released} (it stops once it also answered every routed message
 * that passed its {@link RouteGate}: none is lost, and nothing waits on a session that stopped).
 * Meanwhile what its context still delivers passes, server requests are refused, and routed
 * messages are answered that the session is gone.
 */
final class EndedSession {

  /** Every lease of the session's context is released. */
  private enum LeasesReleased implements DownstreamSession.Command {
    INSTANCE
  }

  private final String id;
  private final RouteGate gate;

  private EndedSession(String id, RouteGate gate) {
    this.id = id;
    this.gate = gate;
  }

  /**
   * The session {@code id} ended (its gate closed): its leases are released, then {@code replyTo}
   * hears.
   */
  static Behavior<DownstreamSession.Command> ending(
      ActorContext<DownstreamSession.Command> context,
      SessionSupervisor supervisor,
      String id,
      RouteGate gate,
      ActorRef<DownstreamSessions.Reply> replyTo) {
    context.pipeToSelf(supervisor.releaseAll(id), (done, failure) -> LeasesReleased.INSTANCE);
    return new EndedSession(id, gate).ending(new ArrayList<>(List.of(replyTo)));
  }

  private Behavior<DownstreamSession.Command> ending(
      List<ActorRef<DownstreamSessions.Reply>> waiters) {
    return afterEnd(Behaviors::same)
        .onMessage(DownstreamSession.End.class, end -> same(() -> waiters.add(end.replyTo())))
        .onMessageEquals(
            LeasesReleased.INSTANCE,
            () -> {
              waiters.forEach(waiter -> waiter.tell(DownstreamSessions.Reply.DONE));
              return released();
            })
        .onAnyMessage(ignored -> Behaviors.same())
        .build();
  }

  private Behavior<DownstreamSession.Command> released() {
    return gate.drained()
        ? Behaviors.stopped()
        : afterEnd(this::released)
            .onMessage(
                DownstreamSession.End.class,
                end -> same(() -> end.replyTo().tell(DownstreamSessions.Reply.DONE)))
            .onAnyMessage(ignored -> Behaviors.same())
            .build();
  }

  /**
   * What both states handle alike; a routed message is answered, then the state is {@code next}.
   */
  private BehaviorBuilder<DownstreamSession.Command> afterEnd(
      Supplier<Behavior<DownstreamSession.Command>> next) {
    return Behaviors.receive(DownstreamSession.Command.class)
        .onMessage(
            DownstreamSession.FromContext.class,
            from -> same(() -> ContextDelivery.deliverReleased(from.message(), id)))
        .onMessage(
            DownstreamSession.UpstreamRequest.class,
            upstream ->
                same(() -> ServerRequestBridge.refuse(upstream, "the downstream session ended")))
        .onMessage(
            DownstreamSession.Routed.class,
            routed -> {
              gate.processed();
              routed.exchange().tell(routed.whenGone());
              return next.get();
            })
        .onMessage(
            DownstreamSession.ExchangeClosed.class,
            closed -> {
              gate.processed();
              return next.get();
            })
        .onMessage(
            DownstreamSession.Drain.class,
            drain -> same(() -> drain.replyTo().tell(new DownstreamSessions.Drained(id))));
  }

  private static Behavior<DownstreamSession.Command> same(Runnable action) {
    action.run();
    return Behaviors.same();
  }
}
