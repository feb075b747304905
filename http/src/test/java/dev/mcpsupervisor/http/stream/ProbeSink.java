package dev.mcpsupervisor.http.stream;

import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;

/** An exchange that a test probe stands in for: what the session tells it, the probe receives. */
public record ProbeSink(ActorRef<Exchange.Event> ref) implements ExchangeSink {

  public static ProbeSink of(TestProbe<Exchange.Event> probe) {
    return new ProbeSink(probe.ref());
  }

  @Override
  public void tell(Exchange.Event event) {
    ref.tell(event);
  }
}
