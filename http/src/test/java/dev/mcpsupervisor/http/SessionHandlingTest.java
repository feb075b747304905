package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.LoggerFactory;

/**
 * What a downstream session does with GET streams and idleness; probes stand in for the exchanges
 * and the registry, a counter for the idle timer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SessionHandlingTest {

  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  /** One session's handling, its registry and how often its idle timer started. */
  private final class Session {
    final TestProbe<DownstreamSessions.Command> registry = testKit.createTestProbe();
    final AtomicInteger idleTimerStarts = new AtomicInteger();
    final RouteGate gate = new RouteGate();
    final SessionHandling handling =
        new SessionHandling(
            new SessionSpec(
                "s1",
                new NeverAnswers(),
                null,
                GatewaySettings.fromConfig(ConfigFactory.empty()),
                Duration.ofMinutes(5),
                null,
                registry.getRef(),
                gate),
            new SessionHandling.Wiring(
                null,
                (delay, exchange) -> {},
                id -> null,
                (outcome, requestId, sequence) -> {},
                null,
                null,
                subscribing -> {},
                idleTimerStarts::incrementAndGet,
                () -> null,
                () -> LoggerFactory.getLogger(SessionHandlingTest.class),
                reason -> {}));
  }

  private static int refusal(TestProbe<Exchange.Event> exchange) {
    return exchange.expectMessageClass(Exchange.Refused.class).status();
  }

  @Test
  void oneGetStreamAtATimeAndNoneWhileDraining() {
    Session session = new Session();
    TestProbe<Exchange.Event> first = testKit.createTestProbe();
    TestProbe<Exchange.Event> second = testKit.createTestProbe();
    TestProbe<Exchange.Event> whileDraining = testKit.createTestProbe();
    session.handling.openStream(new DownstreamSession.OpenStream(ProbeSink.of(first)), false);
    session.handling.openStream(new DownstreamSession.OpenStream(ProbeSink.of(second)), false);
    assertEquals(409, refusal(second));
    session.handling.openStream(
        new DownstreamSession.OpenStream(ProbeSink.of(whileDraining)), true);
    assertEquals(503, refusal(whileDraining));
    session.handling.resumeStream(
        new DownstreamSession.ResumeStream("1", ProbeSink.of(whileDraining)), true);
    assertEquals(503, refusal(whileDraining));
    assertEquals(4, session.idleTimerStarts.get()); // each GET is activity
  }

  @Test
  void anIdleSessionAsksToEndOnceNothingIsOnItsWay() {
    Session session = new Session();
    for (int i = 0; i < 3; i++) {
      assertTrue(session.gate.pass()); // the routes tell it three messages
    }
    session.handling.routedActivity();
    session.handling.routed();
    session.handling.idleCheck(); // the third is on its way: the session stays
    session.registry.expectNoMessage(Duration.ofMillis(50));
    session.handling.routed();
    session.handling.retryOverdue();
    assertEquals(
        new DownstreamSessions.EndMe("s1", "its client did not retry its input_required request"),
        session.registry.expectMessageClass(DownstreamSessions.EndMe.class));
    assertFalse(session.gate.pass()); // closed: the routes answer 404 themselves
    session.handling.idleCheck(); // asked once: the registry ends it
    session.registry.expectNoMessage(Duration.ofMillis(50));
    assertEquals(3, session.idleTimerStarts.get());
  }

  @Test
  void aSecondStatelessRequestIsRefused() {
    Session session = new Session();
    TestProbe<Exchange.Event> exchange = testKit.createTestProbe();
    ClientRequests.Client client = new ClientRequests.Client("2026-07-28", null, "c", "1", null);
    assertNull(
        session.handling.beginStateless(
            new DownstreamSession.Stateless(
                null, null, null, null, Map.of(), false, ProbeSink.of(exchange)),
            client));
    assertEquals(409, refusal(exchange));
  }
}
