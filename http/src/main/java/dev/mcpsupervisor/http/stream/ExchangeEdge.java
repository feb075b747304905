package dev.mcpsupervisor.http.stream;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * This node's end of an exchange served on another cluster node: the events the owner sends there
 * go to the HTTP exchange here. Whoever spawned it stops it once the exchange is over (its last
 * event sent, or its client gone: the owner, watching the edge, learns of it); it stops itself when
 * the owner is gone (its node left or died), telling the client what that means.
 */
public final class ExchangeEdge {

  private ExchangeEdge() {}

  /**
   * @param ownerGone the exchange's last event should the owner go away first
   */
  public static Behavior<Exchange.Event> create(
      ExchangeSink exchange, ActorRef<?> owner, Exchange.Event ownerGone) {
    return Behaviors.setup(
        context -> {
          context.watch(owner);
          return Behaviors.receive(Exchange.Event.class)
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
        });
  }
}
