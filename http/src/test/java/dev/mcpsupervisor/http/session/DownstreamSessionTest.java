package dev.mcpsupervisor.http.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.IntNode;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ProbeSink;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.config.SessionLimits;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.time.Duration;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The states of the two kinds of routed session, a {@link DownstreamSession} and a {@link
 * ListenSession}, driven as the routes and the registry drive them; probes stand in for the
 * exchanges and the registry, a supervisor without servers for the upstreams.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DownstreamSessionTest {

  private final SessionSupervisor supervisor =
      SessionSupervisor.start(new SupervisorConfig(Map.of(), null));
  private int spawned;

  @AfterAll
  void stop() {
    supervisor.close();
  }

  /** One session, its registry and the gate the routes tell it through. */
  private final class Session {
    final TestProbe<DownstreamSessions.Command> registry = probe();
    final RouteGate gate = new RouteGate();
    final ActorRef<DownstreamSession.Command> ref;

    Session(Duration idleTimeout, boolean listenStream) {
      SessionSpec spec =
          new SessionSpec(
              "s" + ++spawned,
              new NeverAnswers(),
              supervisor,
              GatewaySettings.fromConfig(ConfigFactory.load()),
              () -> idleTimeout,
              registry.getRef(),
              gate,
              Identity.ANONYMOUS,
              SessionReplicas.Replication.NONE,
              () -> SessionLimits.defaults().maxInflightPerDownstreamSession());
      Behavior<DownstreamSession.Command> behavior =
          listenStream ? ListenSession.create(spec) : DownstreamSession.create(spec);
      ref = supervisor.spawn(behavior, spec.id()).toCompletableFuture().join();
    }

    /** Tells it a routed message as the routes do: through its gate. */
    void route(DownstreamSession.Command routed) {
      assertTrue(gate.pass());
      ref.tell(routed);
    }

    /** Its registry's idle sweep. */
    void sweep() {
      ref.tell(DownstreamSession.IDLE_CHECK);
    }
  }

  private <T> TestProbe<T> probe() {
    return TestProbe.create(supervisor.actorSystem());
  }

  private static int refusal(TestProbe<Exchange.Event> exchange) {
    return exchange.expectMessageClass(Exchange.Refused.class).status();
  }

  @Test
  void oneGetStreamAtATimeAndNoneWhileDraining() {
    Session session = new Session(Duration.ofMinutes(5), false);
    TestProbe<Exchange.Event> first = probe();
    TestProbe<Exchange.Event> second = probe();
    session.route(new DownstreamSession.OpenStream(ProbeSink.of(first)));
    first.expectMessageClass(Exchange.Opened.class);
    session.route(new DownstreamSession.OpenStream(ProbeSink.of(second)));
    assertEquals(409, refusal(second));

    TestProbe<DownstreamSessions.Command> drained = probe();
    session.ref.tell(new DownstreamSession.Drain(drained.getRef()));
    first.expectMessageClass(Exchange.Complete.class); // the GET stream closes at the drain
    session.route(new DownstreamSession.ExchangeClosed(ProbeSink.of(first)));
    assertEquals(
        "s" + spawned, drained.expectMessageClass(DownstreamSessions.Drained.class).sessionId());
    TestProbe<Exchange.Event> whileDraining = probe();
    session.route(new DownstreamSession.OpenStream(ProbeSink.of(whileDraining)));
    assertEquals(503, refusal(whileDraining));
    session.route(new DownstreamSession.ResumeStream("1", ProbeSink.of(whileDraining)));
    assertEquals(503, refusal(whileDraining));
  }

  @Test
  void aSessionActiveWithinItsIdleTimeoutIsNotEndedByTheSweep() {
    Session session = new Session(Duration.ofMinutes(5), false);
    TestProbe<Exchange.Event> stream = probe();
    session.route(new DownstreamSession.OpenStream(ProbeSink.of(stream)));
    session.sweep();
    session.registry.expectNoMessage(Duration.ofMillis(100));
    assertTrue(session.gate.pass(), "the gate stays open");
  }

  @Test
  void anIdleSessionAsksToEndOnceNothingIsOnItsWay() {
    Session session = new Session(Duration.ZERO, false);
    assertTrue(session.gate.pass()); // a message on its way: counted, not yet told
    session.sweep();
    session.registry.expectNoMessage(Duration.ofMillis(100));
    // the message arrives and is taken; the next sweep finds the session idle
    session.ref.tell(new DownstreamSession.ExchangeClosed(ProbeSink.of(probe())));
    session.sweep();
    assertEquals(
        new DownstreamSessions.EndMe("s" + spawned, "idle for PT0S"),
        session.registry.expectMessageClass(DownstreamSessions.EndMe.class));
    assertFalse(session.gate.pass(), "closed: the routes answer 404 themselves");
    session.sweep(); // asked once: the registry ends it
    session.registry.expectNoMessage(Duration.ofMillis(100));
  }

  @Test
  void anEndedSessionAnswersWhatPassedItsGateThenStops() {
    Session session = new Session(Duration.ofMinutes(5), false);
    TestProbe<DownstreamSessions.Reply> ended = probe();
    TestProbe<Exchange.Event> late = probe();
    assertTrue(session.gate.pass());
    session.ref.tell(new DownstreamSession.End("test", ended.getRef()));
    session.ref.tell(new DownstreamSession.OpenStream(ProbeSink.of(late)));
    assertEquals(DownstreamSessions.Reply.DONE, ended.receiveMessage());
    assertEquals(404, refusal(late));
    TestProbe<Object> watcher = probe();
    watcher.expectTerminated(session.ref, Duration.ofSeconds(5));
  }

  private static ListenSession.Listen listen(TestProbe<Exchange.Event> exchange) {
    return new ListenSession.Listen(
        new JsonRpcRequest(IntNode.valueOf(1), "subscriptions/listen", JsonRpcCodec.emptyObject()),
        new StatelessEnvelope.Meta("2026-07-28", JsonRpcCodec.emptyObject(), null, null),
        null,
        ProbeSink.of(exchange));
  }

  @Test
  void aListenSessionServesOneStreamAndIsNotIdleWhileDiscovering() {
    Session session = new Session(Duration.ZERO, true);
    TestProbe<Exchange.Event> stream = probe();
    TestProbe<Exchange.Event> second = probe();
    session.route(listen(stream));
    session.route(listen(second));
    assertEquals(409, refusal(second));
    session.sweep(); // its servers never answer (NeverAnswers): it keeps discovering
    session.registry.expectNoMessage(Duration.ofMillis(100));

    // it ends with its stream, with no round trip through its registry
    session.route(new DownstreamSession.ExchangeClosed(ProbeSink.of(stream)));
    probe().expectTerminated(session.ref, Duration.ofSeconds(5));
  }

  @Test
  void aListenSessionThatNeverListensIsEndedWhenIdle() {
    Session session = new Session(Duration.ZERO, true);
    session.sweep();
    assertEquals(
        "never listened",
        session.registry.expectMessageClass(DownstreamSessions.EndMe.class).reason());
  }
}
