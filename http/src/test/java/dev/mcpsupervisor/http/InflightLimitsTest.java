package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.SessionLimits;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One client's flood against a server whose one upstream session every client shares: session A
 * posts 5,056 slow calls (79 full batches of 64, 2025-03-26), session B's call is still answered at
 * once. Without a cap A's calls would fill that session's stash (1,000) and B would be answered
 * "overloaded".
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InflightLimitsTest {

  private static final String PATH = "/servers/local/mcp";
  private static final int BATCH = SessionLimits.defaults().maxBatchLength();
  private static final int BATCHES = (5_000 + BATCH - 1) / BATCH;
  private static final long SLEEP_MS = 5_000;

  /** The upstream takes more than one session's cap, so B's call goes out at once. */
  private static final int UPSTREAM_INFLIGHT = 128;

  /** Calls one upstream session holds besides those in flight (actors' reference.conf). */
  private static final int STASH_CAPACITY =
      ConfigFactory.load().getInt("mcp-supervisor.supervisor.stashCapacity");

  @Test
  void oneSessionsFloodIsRefusedAtItsCapAndAnotherSessionsCallIsAnsweredPromptly()
      throws Exception {
    try (TestGateway gateway = TestGateway.start(sharedByEveryone())) {
      String a = gateway.initialize(PATH, ProtocolVersions.V2025_03_26, "{}");
      String b = gateway.initialize(PATH, ProtocolVersions.V2025_06_18, "{}");

      List<CompletableFuture<HttpResponse<String>>> flood = new ArrayList<>();
      for (int batch = 0; batch < BATCHES; batch++) {
        flood.add(gateway.postAsync(PATH, a, slowBatch(batch * BATCH)));
      }
      awaitFloodIn(gateway, flood);

      long start = System.nanoTime();
      HttpResponse<String> answered =
          gateway.post(
              PATH, b, TestGateway.callTool("\"b\"", "echo", "{\"message\":\"still here\"}"));
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      JsonNode answer = TestGateway.answer(answered);
      System.out.printf("InflightLimitsTest: B answered in %d ms: %s%n", millis, answer);
      assertEquals("still here", TestGateway.text(answer), answer::toString);
      assertTrue(millis < SLEEP_MS, () -> "B waited " + millis + " ms behind A's calls");

      AtomicInteger results = new AtomicInteger();
      AtomicInteger overloaded = new AtomicInteger();
      for (CompletableFuture<HttpResponse<String>> batch : flood) {
        for (JsonNode message : TestGateway.messages(TestGateway.await(batch))) {
          for (JsonNode element : message.isArray() ? message : List.of(message)) {
            if (element.has("result")) {
              results.incrementAndGet();
            } else if (element.path("error").path("code").asInt() == JsonRpcErrorCodes.OVERLOADED) {
              overloaded.incrementAndGet();
            }
          }
        }
      }
      System.out.printf(
          "InflightLimitsTest: A: %d results, %d overloaded%n", results.get(), overloaded.get());
      assertEquals(BATCHES * BATCH, results.get() + overloaded.get());
      assertEquals(
          SessionLimits.defaults().maxInflightPerDownstreamSession(),
          results.get(),
          "A's calls taken: its gateway.maxInflightPerDownstreamSession");
    }
  }

  @Test
  void oneStatelessCallersFloodIsRefusedAtItsCapAndAnotherCallersCallIsAnsweredPromptly() {
    int calls = 200;
    try (TestGateway gateway =
        TestGateway.start(
            "mcp-supervisor.http.agentIdHeader = X-Agent-ID",
            sessionsForEveryCall(),
            sharedByEveryone())) {
      StatelessClient client = new StatelessClient(gateway, "{}");
      List<CompletableFuture<HttpResponse<String>>> flood = new ArrayList<>();
      for (int i = 0; i < calls; i++) {
        flood.add(
            gateway.postAsync(
                PATH,
                null,
                client.toolCall(i, FixtureTools.SLEEP, "{\"ms\":" + SLEEP_MS + "}", "", ""),
                withAgent("a", StatelessClient.headers("tools/call", FixtureTools.SLEEP))));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      // every call of A's is in: answered, or held by the upstream (once its process is up)
      while (flood.stream().filter(CompletableFuture::isDone).count() + upstreamHolds(gateway)
          < calls) {
        assertTrue(System.nanoTime() < deadline, "A's calls did not arrive");
      }

      long start = System.nanoTime();
      HttpResponse<String> answered =
          gateway.post(
              PATH,
              null,
              client.toolCall("\"b\"", "echo", "{\"message\":\"still here\"}", "", ""),
              withAgent("b", StatelessClient.headers("tools/call", "echo")));
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      JsonNode answer = TestGateway.answer(answered);
      System.out.printf("InflightLimitsTest: stateless B answered in %d ms: %s%n", millis, answer);
      assertEquals("still here", TestGateway.text(answer), answer::toString);
      assertTrue(millis < SLEEP_MS, () -> "B waited " + millis + " ms behind A's calls");

      int results = 0;
      int overloaded = 0;
      for (CompletableFuture<HttpResponse<String>> call : flood) {
        JsonNode message = TestGateway.answer(TestGateway.await(call));
        if (message.has("result")) {
          results++;
        } else if (message.path("error").path("code").asInt() == JsonRpcErrorCodes.OVERLOADED) {
          overloaded++;
        }
      }
      System.out.printf(
          "InflightLimitsTest: stateless A: %d results, %d overloaded%n", results, overloaded);
      int perIdentity = SessionLimits.defaults().maxInflightPerIdentity();
      assertEquals(perIdentity, results, "A's calls taken: gateway.maxInflightPerIdentity");
      assertEquals(calls - perIdentity, overloaded);
    }
  }

  @Test
  void everyRequestPastTheBatchLengthIsAnsweredWithAnErrorNotDropped() {
    int maxBatchLength = 10;
    try (TestGateway gateway =
        TestGateway.start(limits(100, 100, 64, 64, maxBatchLength), sharedByEveryone())) {
      String session = gateway.initialize(PATH, ProtocolVersions.V2025_03_26, "{}");
      StringBuilder batch = new StringBuilder("[");
      for (int i = 0; i < 15; i++) {
        batch
            .append(i == 0 ? "" : ",")
            .append(TestGateway.callTool(i, "echo", "{\"message\":\"m" + i + "\"}"));
      }
      batch.append(",{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}]");

      HttpResponse<String> response = gateway.post(PATH, session, batch.toString());

      assertEquals(200, response.statusCode(), response.body());
      JsonNode answers = TestGateway.json(response.body());
      assertEquals(15, answers.size(), response.body());
      for (JsonNode answer : answers) {
        int id = answer.path("id").asInt();
        if (id < maxBatchLength) {
          assertEquals("m" + id, TestGateway.text(answer), answer::toString);
        } else {
          assertEquals(
              JsonRpcErrorCodes.INVALID_REQUEST, answer.path("error").path("code").asInt());
          assertEquals(
              "Invalid Request: the batch has more than 10 messages (gateway.maxBatchLength);"
                  + " send the rest in another",
              answer.path("error").path("message").asText());
        }
      }
    }
  }

  /**
   * Every stateless call holds a downstream session: the session limits are above the flood, so
   * that only maxInflightPerIdentity (its default) stops it.
   */
  private static GatewayConfig sessionsForEveryCall() {
    SessionLimits defaults = SessionLimits.defaults();
    return limits(
        1_000,
        1_000,
        defaults.maxInflightPerDownstreamSession(),
        defaults.maxInflightPerIdentity(),
        defaults.maxBatchLength());
  }

  private static GatewayConfig limits(
      int sessions, int sessionsPerIdentity, int perSession, int perIdentity, int batchLength) {
    GatewayConfig base = TestGateway.gateway(List.of(), List.of(), 1024 * 1024);
    return base.toBuilder()
        .sessionLimits(
            new SessionLimits(sessions, sessionsPerIdentity, perSession, perIdentity, batchLength))
        .build();
  }

  private static String[] withAgent(String agent, String[] headers) {
    List<String> all = new ArrayList<>(List.of(headers));
    all.addAll(List.of("X-Agent-ID", agent));
    return all.toArray(String[]::new);
  }

  /** Calls the upstream sessions hold, in flight or waiting. */
  private static int upstreamHolds(TestGateway gateway) {
    return gateway.snapshot().keys().stream()
        .flatMap(key -> key.sessions().stream())
        .mapToInt(session -> session.inFlight() + session.stashed())
        .sum();
  }

  /**
   * A's calls are in: the gateway refused some (a batch came back), or, without a cap, the shared
   * upstream session's stash is full. Bounded at 60 s.
   */
  private static void awaitFloodIn(
      TestGateway gateway, List<CompletableFuture<HttpResponse<String>>> flood) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (flood.stream().anyMatch(CompletableFuture::isDone)
          || gateway.snapshot().keys().stream()
              .flatMap(key -> key.sessions().stream())
              .anyMatch(session -> session.stashed() >= STASH_CAPACITY)) {
        return;
      }
    }
    throw new AssertionError("A's calls did not arrive");
  }

  private static String slowBatch(int firstId) {
    StringBuilder batch = new StringBuilder("[");
    for (int i = 0; i < BATCH; i++) {
      batch
          .append(i == 0 ? "" : ",")
          .append(
              TestGateway.callTool(firstId + i, FixtureTools.SLEEP, "{\"ms\":" + SLEEP_MS + "}"));
    }
    return batch.append("]").toString();
  }

  /** The fixture over stdio, one upstream session for every client. */
  private static ServerConfig sharedByEveryone() {
    ServerConfig fixture = TestGateway.stdioFixture("local");
    return ServerConfig.builder("local", fixture.spec())
        .isolation(Isolation.SHARED)
        .maxSessions(1)
        .maxInflightPerSession(UPSTREAM_INFLIGHT)
        .requestTimeout(fixture.requestTimeout())
        .idleTimeout(fixture.idleTimeout())
        .build();
  }
}
