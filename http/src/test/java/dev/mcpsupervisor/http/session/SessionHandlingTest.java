package dev.mcpsupervisor.http.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.IntNode;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ProbeSink;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.time.Duration;
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

  /** One session's handling and its registry. */
  private final class Session {
    final TestProbe<DownstreamSessions.Command> registry = testKit.createTestProbe();
    final RouteGate gate = new RouteGate();
    final SessionHandling handling;

    Session() {
      this(Duration.ZERO);
    }

    Session(Duration idleTimeout) {
      handling =
          new SessionHandling(
              new SessionSpec(
                  "s1",
                  new NeverAnswers(),
                  null,
                  GatewaySettings.fromConfig(ConfigFactory.empty()),
                  idleTimeout,
                  registry.getRef(),
                  gate),
              new SessionHandling.Wiring(
                  null,
                  (delay, exchange) -> {},
                  id -> null,
                  (outcome, requestId, sequence) -> {},
                  () -> LoggerFactory.getLogger(SessionHandlingTest.class)));
    }
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
  }

  @Test
  void aSessionActiveWithinItsIdleTimeoutIsNotEndedByTheSweep() {
    Session session = new Session(Duration.ofMinutes(5));
    session.handling.idleCheck(); // just started: active now
    session.handling.routedActivity();
    session.handling.idleCheck();
    session.registry.expectNoMessage(Duration.ofMillis(50));
    assertEquals(Duration.ofMillis(30_000), SessionTable.idleSweepInterval(Duration.ofMinutes(5)));
    assertEquals(Duration.ofMillis(1), SessionTable.idleSweepInterval(Duration.ZERO));
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
    session.handling.idleCheck();
    assertEquals(
        new DownstreamSessions.EndMe("s1", "idle for PT0S"),
        session.registry.expectMessageClass(DownstreamSessions.EndMe.class));
    assertFalse(session.gate.pass()); // closed: the routes answer 404 themselves
    session.handling.idleCheck(); // asked once: the registry ends it
    session.registry.expectNoMessage(Duration.ofMillis(50));
  }

  @Test
  void aSecondListenRequestIsRefused() {
    Session session = new Session();
    TestProbe<Exchange.Event> exchange = testKit.createTestProbe();
    ClientRequests.Client client = new ClientRequests.Client("2026-07-28", null, "c", "1", null);
    assertNull(
        session.handling.beginListen(
            new DownstreamSession.Listen(null, null, null, ProbeSink.of(exchange)), client));
    assertEquals(409, refusal(exchange));
  }

  @Test
  void aSessionEraSessionHasNoListenPartUntilAListenRequestBegins() {
    Session session = new Session();
    TestProbe<Exchange.Event> exchange = testKit.createTestProbe();
    // none of these needs the listen part: they work without it, as before
    assertTrue(session.gate.pass()); // the routes tell it that an exchange closed
    assertFalse(
        session.handling.exchangeClosed(ProbeSink.of(exchange)), "no listen stream ends with it");
    session.handling.drain();
    session.handling.upstreams.notification(
        new DownstreamSession.UpstreamNotification(
            "fx", new JsonRpcNotification("notifications/tools/list_changed", null), null));
    session.handling.upstreams.failAll("ended");
    session.handling.idleCheck();
    assertEquals(
        "idle for PT0S",
        session.registry.expectMessageClass(DownstreamSessions.EndMe.class).reason());

    // a listen request makes it: while discovering its servers, the session is not idle
    Session stateless = new Session();
    assertEquals(
        "2026-07-28",
        stateless
            .handling
            .beginListen(
                new DownstreamSession.Listen(
                    new JsonRpcRequest(
                        IntNode.valueOf(1), "subscriptions/listen", JsonRpcCodec.emptyObject()),
                    new StatelessEnvelope.Meta(
                        "2026-07-28", JsonRpcCodec.emptyObject(), null, null),
                    null,
                    ProbeSink.of(exchange)),
                null)
            .protocolVersion());
    stateless.handling.idleCheck();
    stateless.registry.expectNoMessage(Duration.ofMillis(50));
    stateless.handling.drain();
    stateless.handling.upstreams.failAll("ended");
  }
}
