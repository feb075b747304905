package dev.mcpsupervisor.http.stateless;

import dev.mcpsupervisor.http.stream.Exchange;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * This node's end of a retry whose round is held on another node ({@link RoundDesk}): the events
 * the owner sends go to the HTTP exchange here. Its desk stops it once the exchange is over (its
 * last event sent, or its client gone: the owner, watching, gives the round up); it stops itself
 * when the owner's desk is gone (its node left or died), telling the client to start the call
 * again.
 */
final class RoundEdge {

  private RoundEdge() {}

  static Behavior<Exchange.Event> create(Exchange exchange, ActorRef<RoundDesk.Command> owner) {
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
                    exchange.tell(
                        Exchange.Refused.of(
                            503,
                            "the gateway node that held this input_required round is gone, and"
                                + " the call with it: send the request again without"
                                + " requestState"));
                    return Behaviors.stopped();
                  })
              .build();
        });
  }
}
