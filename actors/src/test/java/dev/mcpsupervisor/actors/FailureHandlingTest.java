package dev.mcpsupervisor.actors;

import static dev.mcpsupervisor.actors.ServerKeyActorTest.callParams;
import static dev.mcpsupervisor.actors.TestSupervisor.await;
import static dev.mcpsupervisor.actors.TestSupervisor.awaitError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.FakeConnector.FakeConnection;
import dev.mcpsupervisor.actors.base.SupervisionEvent;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.KeySnapshot;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Circuit breaker, eviction after repeated failures, ping, actor crashes and shutdown. */
class FailureHandlingTest {

  /** Why it is unavailable goes to the log under the ref; the client gets the ref. */
  private static final String UNAVAILABLE_WITH_REF =
      "upstream alpha unavailable \\(ref [0-9a-f]{8}\\)";

  private static final String CIRCUIT =
      "mcp-supervisor.supervisor.circuitBreaker { maxFailures = 3, cooldown = 10s }";

  private static JsonRpcError acquireError(CompletionStage<JsonNode> acquire) {
    ExecutionException failure =
        assertThrows(
            ExecutionException.class,
            () -> acquire.toCompletableFuture().get(10, TimeUnit.SECONDS));
    return ((SupervisorException) failure.getCause()).error();
  }

  @Test
  void circuitOpensAfterRepeatedConnectFailuresAndFailsFast() {
    try (TestSupervisor test = TestSupervisor.start(CIRCUIT, TestSupervisor.shared("alpha"))) {
      test.connector.failConnectsWith = "connection refused";
      for (int attempt = 1; attempt <= 3; attempt++) {
        JsonRpcError error = acquireError(test.supervisor.acquire("run-" + attempt, "alpha"));
        assertEquals(JsonRpcErrorCodes.UPSTREAM_UNAVAILABLE, error.code());
        assertTrue(error.message().matches(UNAVAILABLE_WITH_REF), error.message());
      }
      assertEquals(3, test.connector.connects.get());
      assertEquals("open", test.onlyKey().circuit());

      JsonRpcError fast = acquireError(test.supervisor.acquire("run-4", "alpha"));
      assertTrue(fast.message().matches(UNAVAILABLE_WITH_REF), fast.message());
      JsonRpcError request =
          awaitError(test.supervisor.request("run-5", "alpha", McpMethods.TOOLS_LIST, null, null));
      assertEquals(JsonRpcErrorCodes.UPSTREAM_UNAVAILABLE, request.code());
      assertEquals(
          3, test.connector.connects.get(), "an open circuit fails fast, without connecting");
    }
  }

  @Test
  void circuitHalfOpensAfterCooldownAndClosesWhenTheProbeSucceeds() {
    try (TestSupervisor test = TestSupervisor.start(CIRCUIT, TestSupervisor.shared("alpha"))) {
      test.connector.failConnectsWith = "connection refused";
      for (int attempt = 1; attempt <= 3; attempt++) {
        acquireError(test.supervisor.acquire("run-" + attempt, "alpha"));
      }
      assertEquals("open", test.onlyKey().circuit());
      test.connector.failConnectsWith = null;

      test.timePasses(Duration.ofSeconds(10));
      assertEquals("half-open", test.onlyKey().circuit());
      await(test.supervisor.acquire("probe", "alpha"));
      assertEquals(4, test.connector.connects.get());
      assertEquals("closed", test.onlyKey().circuit());
      await(test.supervisor.acquire("after", "alpha"));
      assertEquals(4, test.connector.connects.get(), "the probe's session serves everyone again");
      assertEquals(
          List.of(
              SupervisionEvent.Kind.STARTED,
              SupervisionEvent.Kind.ATTEMPT_FAILED,
              SupervisionEvent.Kind.STARTED,
              SupervisionEvent.Kind.ATTEMPT_FAILED,
              SupervisionEvent.Kind.STARTED,
              SupervisionEvent.Kind.ATTEMPT_FAILED,
              SupervisionEvent.Kind.CIRCUIT_OPEN,
              SupervisionEvent.Kind.STARTED,
              SupervisionEvent.Kind.READY,
              SupervisionEvent.Kind.CIRCUIT_CLOSED),
          test.observer.kinds(),
          "the supervision events, in the order they happened");
      SupervisionEvent opened = test.observer.events.get(6);
      assertEquals("alpha", opened.server());
      assertEquals(0, opened.sessionId(), "the key's event, no session's");
      assertEquals(
          "3 failed attempts, the last: connection refused", opened.detail(), "the reason's kind");
    }
  }

  @Test
  void aHalfOpenCircuitLetsExactlyOneProbeTryAtATime() throws Exception {
    try (TestSupervisor test = TestSupervisor.start(CIRCUIT, TestSupervisor.shared("alpha"))) {
      test.connector.failConnectsWith = "connection refused";
      for (int attempt = 1; attempt <= 3; attempt++) {
        acquireError(test.supervisor.acquire("run-" + attempt, "alpha"));
      }
      test.connector.failConnectsWith = null;
      test.timePasses(Duration.ofSeconds(10));
      assertEquals("half-open", test.onlyKey().circuit());

      CompletableFuture<Void> probeConnects = new CompletableFuture<>();
      test.connector.connectGate = probeConnects; // the probe takes its time
      ExecutorService callers = Executors.newFixedThreadPool(8);
      try {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<CompletionStage<JsonNode>>> racing = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
          String context = "caller-" + i;
          racing.add(
              callers.submit(
                  () -> {
                    start.await();
                    return test.supervisor.acquire(context, "alpha");
                  }));
        }
        start.countDown();
        List<CompletionStage<JsonNode>> acquires = new ArrayList<>();
        for (Future<CompletionStage<JsonNode>> future : racing) {
          acquires.add(future.get(10, TimeUnit.SECONDS));
        }
        test.awaitAssert(
            () ->
                assertEquals(
                    200, test.onlyKey().leases().size(), "every caller waits on the probe"));
        assertEquals(
            4,
            test.connector.connects.get(),
            "three failed attempts, then one probe: never two at a time");
        assertEquals(1, test.onlyKey().sessions().size());

        probeConnects.complete(null);
        acquires.forEach(TestSupervisor::await);
        assertEquals("closed", test.onlyKey().circuit());
        assertEquals(4, test.connector.connects.get());
      } finally {
        callers.shutdownNow();
      }
    }
  }

  @Test
  void failedProbeReopensTheCircuitAtOnce() {
    try (TestSupervisor test = TestSupervisor.start(CIRCUIT, TestSupervisor.shared("alpha"))) {
      test.connector.failConnectsWith = "connection refused";
      String refused = null;
      for (int attempt = 1; attempt <= 3; attempt++) {
        refused = acquireError(test.supervisor.acquire("run-" + attempt, "alpha")).message();
      }
      test.timePasses(Duration.ofSeconds(10));
      test.connector.failConnectsWith = "still refused";
      String probe = acquireError(test.supervisor.acquire("probe", "alpha")).message();
      assertTrue(probe.matches(UNAVAILABLE_WITH_REF), probe);
      assertNotEquals(refused, probe, "the probe's own failure, under a ref of its own");
      assertEquals("open", test.onlyKey().circuit());
      acquireError(test.supervisor.acquire("next", "alpha"));
      assertEquals(4, test.connector.connects.get());
    }
  }

  @Test
  void reconnectFailuresOfAReadySessionOpenTheCircuitAndAnswerItsCallers() {
    try (TestSupervisor test = TestSupervisor.start(CIRCUIT, TestSupervisor.shared("alpha"))) {
      await(test.supervisor.acquire("run", "alpha"));
      CompletionStage<JsonRpcResponse> waiting =
          test.supervisor.request(
              "run", "alpha", McpMethods.TOOLS_CALL, callParams("x"), Duration.ofMinutes(5));
      FakeConnection connection = test.connector.nextConnection();
      connection.nextRequest();
      test.connector.failConnectsWith = "spawn failed";
      connection.die("crashed");
      for (int attempt = 0; attempt < 3; attempt++) {
        int connects = 1 + attempt;
        test.awaitAssert(
            () -> assertEquals("restarting", test.onlyKey().sessions().get(0).state()));
        test.timePasses(
            Duration.ofMillis(250L << attempt)); // the backoff doubles from 200 ms (+20 % jitter)
        test.awaitAssert(() -> assertEquals(connects + 1, test.connector.connects.get()));
      }
      JsonRpcError error = awaitError(waiting);
      assertEquals(
          JsonRpcErrorCodes.UPSTREAM_SESSION_LOST,
          error.code(),
          "the send was in flight when it died");
      test.awaitAssert(() -> assertEquals("open", test.onlyKey().circuit()));
      assertTrue(test.onlyKey().leases().isEmpty(), "the failing session and its leases are gone");
      assertEquals(4, test.connector.connects.get());
    }
  }

  @Test
  void consecutiveRequestFailuresEvictTheSession() {
    try (TestSupervisor test =
        TestSupervisor.start(
            "mcp-supervisor.supervisor.evictAfterConsecutiveFailures = 3",
            TestSupervisor.shared("alpha"))) {
      List<CompletionStage<JsonRpcResponse>> calls = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        calls.add(
            test.supervisor.request(
                "run", "alpha", McpMethods.TOOLS_CALL, callParams("hang"), Duration.ofSeconds(1)));
      }
      FakeConnection first = test.connector.nextConnection();
      for (int i = 0; i < 3; i++) {
        first.nextRequest();
      }
      test.timePasses(Duration.ofSeconds(1));
      calls.forEach(
          call -> assertEquals(JsonRpcErrorCodes.REQUEST_TIMEOUT, awaitError(call).code()));
      test.awaitAssert(() -> assertEquals(1, test.observer.evicted("failures")));
      test.awaitAssert(() -> assertTrue(first.closed.get()));

      test.connector.answerCalls =
          request -> JsonRpcResponse.success(request.id(), FakeConnector.text("fresh"));
      JsonRpcResponse next =
          await(
              test.supervisor.request(
                  "run", "alpha", McpMethods.TOOLS_CALL, callParams("x"), null));
      assertEquals("fresh", next.result().path("content").get(0).path("text").asText());
      assertEquals(2, test.connector.connects.get(), "the next call opened a new session");
    }
  }

  @Test
  void unansweredPingRestartsTheConnection() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      await(test.supervisor.acquire("run", "alpha"));
      FakeConnection first = test.connector.nextConnection();
      test.timePasses(Duration.ofSeconds(30));
      test.awaitAssert(
          () ->
              assertEquals(
                  1,
                  first.log.stream()
                      .filter(m -> m instanceof JsonRpcRequest r && r.method().equals("ping"))
                      .count()));
      assertEquals(0, test.observer.restarted.get(), "an answered ping changes nothing");

      test.connector.answerPing = false;
      test.timePasses(Duration.ofSeconds(30));
      JsonRpcRequest ping = first.nextRequest();
      assertEquals(McpMethods.PING, ping.method());
      test.onlySession(); // barrier: the ping timeout is running
      test.timePasses(Duration.ofSeconds(10));
      test.awaitAssert(() -> assertEquals(1, test.observer.restarted.get()));
      test.connector.answerPing = true;
      test.timePasses(Duration.ofSeconds(1));
      test.connector.nextConnection();
      test.awaitAssert(() -> assertEquals("ready", test.onlySession().state()));
      assertEquals(2, test.connector.connects.get());
    }
  }

  @Test
  void anOperatorsRestartReplacesTheConnectionOfAReadySessionOnly() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      String keyId = "no-such-key";
      assertFalse(await(test.supervisor.restartSession(keyId, 1, "by ops")), "no such key");
      await(test.supervisor.acquire("run", "alpha"));
      FakeConnection first = test.connector.nextConnection();
      KeySnapshot key = test.onlyKey();
      long session = key.sessions().get(0).sessionId();
      assertFalse(
          await(test.supervisor.restartSession(key.keyId(), session + 1, "by ops")),
          "no such session");

      assertTrue(await(test.supervisor.restartSession(key.keyId(), session, "by ops")));
      test.awaitAssert(() -> assertTrue(first.closed.get(), "the old connection is closed"));
      assertEquals("restarting", test.onlySession().state());
      assertNull(test.onlySession().connectedAt(), "no connection while it restarts");
      assertFalse(
          await(test.supervisor.restartSession(key.keyId(), session, "by ops")),
          "not ready: nothing to restart");
      test.timePasses(Duration.ofSeconds(1));
      test.connector.nextConnection();
      test.awaitAssert(() -> assertEquals("ready", test.onlySession().state()));
      assertEquals(1, test.onlySession().restarts());
      assertEquals("by ops", test.onlySession().lastLoss());
      assertNotNull(test.onlySession().connectedAt());
      assertEquals(1, test.onlyKey().leases().size(), "the lease stays");
      assertEquals(
          List.of(
              SupervisionEvent.Kind.STARTED,
              SupervisionEvent.Kind.READY,
              SupervisionEvent.Kind.RESTART_REQUESTED,
              SupervisionEvent.Kind.RESTARTED),
          test.observer.kinds());
      assertEquals(1, test.observer.restarted.get(), "counted as a restart");
    }
  }

  @Test
  void shutdownAnswersEverythingWaitingAndClosesEveryConnection() throws Exception {
    TestSupervisor test =
        TestSupervisor.start(TestSupervisor.shared("alpha"), TestSupervisor.shared("beta"));
    await(test.supervisor.acquire("run", "alpha"));
    CompletionStage<JsonRpcResponse> inFlight =
        test.supervisor.request("run", "alpha", McpMethods.TOOLS_CALL, callParams("slow"), null);
    FakeConnection alpha = test.connector.nextConnection();
    alpha.nextRequest();
    test.connector.holdInitialize = true;
    CompletionStage<JsonRpcResponse> waiting =
        test.supervisor.request("run", "beta", McpMethods.TOOLS_CALL, callParams("slow"), null);
    FakeConnection beta = test.connector.nextConnection();
    beta.nextRequest(); // initialize, never answered

    test.close();
    assertEquals(JsonRpcErrorCodes.SHUTTING_DOWN, awaitError(inFlight).code());
    assertEquals(JsonRpcErrorCodes.SHUTTING_DOWN, awaitError(waiting).code());
    assertTrue(alpha.closed.get());
    assertTrue(beta.closed.get());
    assertTrue(test.supervisor.actorSystem().whenTerminated().isCompleted());
  }

  @Test
  void aCrashedSessionActorAnswersWhatItHeldAndComesBack() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      CompletionStage<JsonRpcResponse> inFlight =
          test.supervisor.request("run", "alpha", McpMethods.TOOLS_CALL, callParams("slow"), null);
      FakeConnection first = test.connector.nextConnection();
      first.nextRequest();
      first.failPid = true; // the next snapshot throws inside the session actor: a bug
      test.supervisor.snapshot();

      JsonRpcError error = awaitError(inFlight);
      assertEquals(JsonRpcErrorCodes.UPSTREAM_SESSION_LOST, error.code());
      test.awaitAssert(() -> assertTrue(first.closed.get()));
      test.timePasses(Duration.ofSeconds(1)); // the restart backoff, then the snapshot timeout
      test.timePasses(Duration.ofSeconds(3));
      test.connector.nextConnection();
      test.connector.answerCalls =
          request -> JsonRpcResponse.success(request.id(), FakeConnector.text("again"));
      assertEquals(
          "again",
          await(
                  test.supervisor.request(
                      "run", "alpha", McpMethods.TOOLS_CALL, callParams("x"), null))
              .result()
              .path("content")
              .get(0)
              .path("text")
              .asText());
    }
  }
}
