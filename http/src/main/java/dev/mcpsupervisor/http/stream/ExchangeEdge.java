package dev.mcpsupervisor.http.stream;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * This node's end of an exchange served on another cluster node: the events the owner sends there
 * go to the HTTP exchange here. Whoever spawned it stops it once the exchange is over (its last
 * event sent, or its client gone: the owner, watching the edge, learns of it); it stops itself when
 * the owner is gone (its node left or died), telling the client what that means. The owner is the
 * desk the request was passed to last, by hop count ({@link ServedBy#hops}): a request may be
 * passed on before a node serves it, and the news of two passes, told from two nodes, may come in
 * either order.
 */
public final class ExchangeEdge {

  /**
   * The exchange is served by {@code owner} (an actor on the node that serves it, or that passes it
   * on), which had it passed {@code hops} times.
   */
  public record ServedBy(ActorRef<?> owner, int hops) implements Exchange.Event {}

  /**
   * This node's drain deadline passed before the owner answered: the exchange ends now as it would
   * had the owner gone (an error the client can act on), before the node's connections are closed,
   * which would cut it.
   */
  public enum Abandon implements Exchange.Event {
    INSTANCE
  }

  private ExchangeEdge() {}

  /**
   * @param ownerGone the exchange's last event should the owner go away first
   */
  public static Behavior<Exchange.Event> create(ExchangeSink exchange, Exchange.Event ownerGone) {
    return Behaviors.setup(context -> relaying(context, exchange, ownerGone, null));
  }

  /** {@code owner} is null until the first {@link ServedBy}. */
  private static Behavior<Exchange.Event> relaying(
      ActorContext<Exchange.Event> context,
      ExchangeSink exchange,
      Exchange.Event ownerGone,
      ServedBy owner) {
    return Behaviors.receive(Exchange.Event.class)
        .onMessage(
            ServedBy.class,
            served -> {
              if (owner != null
                  && (served.hops() < owner.hops() || served.owner().equals(owner.owner()))) {
                return Behaviors.same(); // an earlier pass, told late; or the same owner again
              }
              if (owner != null) {
                context.unwatch(owner.owner());
              }
              context.watch(served.owner());
              return relaying(context, exchange, ownerGone, served);
            })
        .onMessage(
            Abandon.class,
            abandon -> {
              exchange.tell(ownerGone);
              return Behaviors.stopped();
            })
        .onMessage(
            Exchange.Event.class,
            event -> {
              exchange.tell(event);
              return Behaviors.same();
            })
        .onSignal(
            Terminated.class,
            gone -> {
              exchange.tell(ownerGone);
              return Behaviors.stopped();
            })
        .build();
  }
}
