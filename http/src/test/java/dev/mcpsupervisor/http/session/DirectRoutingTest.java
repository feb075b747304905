package dev.mcpsupervisor.http.session;

import static dev.mcpsupervisor.http.TestGateway.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.http.TestGateway;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.endpoint.InForce;
import dev.mcpsupervisor.http.endpoint.SingleServerEndpoint;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ProbeSink;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.ParsedPayload;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The HTTP routes tell a session directly ({@link SessionDirectory}), not through the registry: a
 * request that races a session's end is answered by that session or with 404, at once, never lost
 * to a session that stopped and never answered by another.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DirectRoutingTest {

  private static final String PATH = SingleServerEndpoint.pathOf("fixture");
  private static final String PING = TestGateway.request(1, "ping", "{}");
  private static final AtomicInteger REGISTRIES = new AtomicInteger();

  /** A registry of its own over the gateway's supervisor, and the directory it writes. */
  private record Registry(
      TestGateway gateway, SessionDirectory directory, ActorRef<DownstreamSessions.Command> ref) {

    static Registry start(TestGateway gateway, Duration idleTimeout) {
      GatewaySettings settings = GatewaySettings.fromConfig(ConfigFactory.load());
      SessionDirectory directory = new SessionDirectory();
      ActorRef<DownstreamSessions.Command> ref =
          await(
              gateway.supervisor.spawn(
                  DownstreamSessions.create(
                      gateway.supervisor,
                      new InForce(
                          gateway.supervisor.config(),
                          gateway.supervisor.config().gateway(),
                          settings,
                          "test",
                          gateway.metrics,
                          Runnable::run),
                      settings,
                      () -> idleTimeout,
                      gateway.metrics,
                      directory,
                      SessionReplicas.Replication.NONE),
                  "direct-routing-" + REGISTRIES.incrementAndGet()));
      return new Registry(gateway, directory, ref);
    }

    String create() {
      TestProbe<DownstreamSessions.Created> created = probe();
      ref.tell(
          new DownstreamSessions.Create(
              "fixture", Identity.ANONYMOUS, DownstreamSessions.Kind.SESSION, created.ref()));
      return created.receiveMessage().sessionId();
    }

    void delete(String id) {
      TestProbe<DownstreamSessions.Reply> deleted = probe();
      ref.tell(new DownstreamSessions.Terminate(id, PATH, Identity.ANONYMOUS, deleted.ref()));
      assertEquals(DownstreamSessions.Reply.DONE, deleted.receiveMessage(Duration.ofSeconds(10)));
    }

    <T> TestProbe<T> probe() {
      return TestProbe.create(gateway.supervisor.actorSystem());
    }
  }

  private static DownstreamSession.Post ping(TestProbe<Exchange.Event> exchange) {
    JsonRpcMessage ping = ((ParsedPayload.Single) JsonRpcCodec.parse(PING.getBytes())).message();
    return new DownstreamSession.Post(
        List.of(ping), List.of(), false, false, ProbeSink.of(exchange));
  }

  @Test
  void aRouteLookedUpBeforeTheSessionEndedAnswers404() {
    try (TestGateway gateway = TestGateway.start(TestGateway.stdioFixture("fixture"))) {
      Registry registry = Registry.start(gateway, Duration.ofMinutes(30));
      String id = registry.create();
      RoutedSession seen = registry.directory.get(id); // a slow HTTP thread holds this lookup
      registry.delete(id);
      TestProbe<Exchange.Event> exchange = registry.probe();
      SessionDirectory.tell(seen, PATH, Identity.ANONYMOUS, ping(exchange));
      assertEquals(404, exchange.expectMessageClass(Exchange.Refused.class).status());
    }
  }

  @Test
  void anEndedSessionAnswersWhatPassedItsGateBeforeItStops() {
    try (TestGateway gateway = TestGateway.start(TestGateway.stdioFixture("fixture"))) {
      Registry registry = Registry.start(gateway, Duration.ofMinutes(30));
      String id = registry.create();
      RoutedSession seen = registry.directory.get(id);
      assertTrue(seen.gate.pass()); // an HTTP thread passed the gate, its tell not yet made
      registry.delete(id); // leases released, DELETE answered
      TestProbe<DownstreamSessions.Reply> endedAgain = registry.probe();
      seen.ref.tell(new DownstreamSession.End("again", endedAgain.ref()));
      assertEquals(DownstreamSessions.Reply.DONE, endedAgain.receiveMessage());
      TestProbe<Exchange.Event> exchange = registry.probe();
      seen.ref.tell(ping(exchange));
      assertEquals(404, exchange.expectMessageClass(Exchange.Refused.class).status());
      exchange.expectTerminated(seen.ref, Duration.ofSeconds(10));
    }
  }

  @Test
  void anIdleSessionStaysWhileARequestIsOnItsWay() {
    try (TestGateway gateway = TestGateway.start(TestGateway.stdioFixture("fixture"))) {
      Registry registry = Registry.start(gateway, Duration.ofMillis(100));
      String id = registry.create();
      RoutedSession seen = registry.directory.get(id);
      assertTrue(seen.gate.pass());
      TestProbe<Exchange.Event> exchange = registry.probe();
      exchange.expectNoMessage(Duration.ofMillis(500)); // five idle checks go by
      assertNotNull(registry.directory.get(id), "kept: a request is on its way");
      seen.ref.tell(ping(exchange));
      Exchange.Event answer = exchange.receiveMessage(Duration.ofSeconds(10));
      assertFalse(
          answer instanceof Exchange.Refused refused && refused.status() == 404,
          "served by the session: " + answer);
      exchange.awaitAssert(
          Duration.ofSeconds(10),
          () -> {
            assertNull(registry.directory.get(id), "idle again: ended");
            return null;
          });
    }
  }

  /**
   * Hundreds of POSTs race DELETEs and idle expiry: each is answered 200 (by its own session) or
   * 404, and promptly: none waits for the answer timeout (30 s and more).
   */
  @Test
  void racingPostsAreAnsweredByTheirSessionOr404Promptly() throws Exception {
    try (TestGateway gateway =
        TestGateway.start(
            TestGateway.gateway(List.of(), List.of(), 1024 * 1024, Duration.ofSeconds(1)),
            TestGateway.stdioFixture("fixture"))) {
      List<CompletableFuture<String>> initialized = new ArrayList<>();
      for (int i = 0; i < 120; i++) {
        initialized.add(
            gateway
                .postAsync(PATH, null, TestGateway.initializeBody(ProtocolVersions.LATEST, "{}"))
                .thenApply(response -> response.headers().firstValue("Mcp-Session-Id").get()));
      }
      List<String> ids = new ArrayList<>();
      for (CompletableFuture<String> id : initialized) {
        ids.add(id.get(60, TimeUnit.SECONDS));
      }
      CountDownLatch start = new CountDownLatch(1);
      List<CompletableFuture<Long>> posts = new ArrayList<>();
      List<CompletableFuture<HttpResponse<String>>> deletes = new ArrayList<>();
      for (int i = 0; i < ids.size(); i++) {
        String id = ids.get(i);
        boolean deleted = i % 2 == 0; // the others race their idle expiry
        for (int j = 0; j < 5; j++) {
          String requestId = "\"s" + i + "-" + j + "\"";
          long delayMillis = deleted ? 0 : ThreadLocalRandom.current().nextLong(2_000);
          Executor later = CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS);
          posts.add(
              CompletableFuture.runAsync(() -> awaitLatch(start), later)
                  .thenCompose(ready -> timedPost(gateway, id, requestId)));
        }
        if (deleted) {
          deletes.add(
              CompletableFuture.runAsync(() -> awaitLatch(start))
                  .thenCompose(
                      ready ->
                          gateway.http.sendAsync(
                              gateway.request(PATH).header("Mcp-Session-Id", id).DELETE().build(),
                              HttpResponse.BodyHandlers.ofString())));
        }
      }
      start.countDown();
      long slowest = 0;
      for (CompletableFuture<Long> post : posts) {
        slowest = Math.max(slowest, post.get(60, TimeUnit.SECONDS));
      }
      for (CompletableFuture<HttpResponse<String>> delete : deletes) {
        int status = delete.get(60, TimeUnit.SECONDS).statusCode();
        assertTrue(status == 200 || status == 404, "DELETE: " + status);
      }
      assertTrue(slowest < 10_000, "every POST answered promptly; the slowest took " + slowest);
    }
  }

  /** A ping with its own id: 200 answered to that id, or 404; answers how long it took (ms). */
  private static CompletableFuture<Long> timedPost(
      TestGateway gateway, String sessionId, String requestId) {
    long started = System.nanoTime();
    return gateway
        .postAsync(PATH, sessionId, TestGateway.request(requestId, "ping", "{}"))
        .thenApply(
            response -> {
              if (response.statusCode() != 404) {
                assertEquals(200, response.statusCode(), response.body());
                JsonNode answer = TestGateway.answer(response);
                assertEquals(requestId, answer.get("id").toString(), "answered by its own session");
              }
              return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            });
  }

  private static void awaitLatch(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
