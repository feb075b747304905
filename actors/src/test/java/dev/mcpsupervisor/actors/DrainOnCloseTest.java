package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.base.SupervisorObserver;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.SessionSnapshot;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.upstream.DefaultConnectors;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * close() drains: the calls in flight when it starts get their real answers (until {@code
 * drainTimeout}), a call made after it started is refused at once, and no child process outlives
 * it. Against the real fixture over stdio.
 */
class DrainOnCloseTest {

  private static final String SERVER = "fixture";
  private static final int IN_FLIGHT = 50;
  private static final int SLEEP_MS = 2_000;
  private static final Duration WITHIN = Duration.ofSeconds(30);

  @AfterAll
  static void noProcessOutlivesTheTests() {
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void everyCallInFlightGetsItsAnswerBeforeCloseReturnsAndNewCallsAreRefusedAtOnce()
      throws Exception {
    SessionSupervisor supervisor = start("", 0);
    List<CompletableFuture<Long>> answeredAt = new ArrayList<>();
    for (int i = 0; i < IN_FLIGHT; i++) {
      answeredAt.add(
          sleep(supervisor, "caller-" + i, SLEEP_MS)
              .thenApply(this::sleptOrFail)
              .toCompletableFuture());
    }
    // every call is held by the session (waiting for it to be ready, or sent upstream)
    awaitHeld(supervisor, IN_FLIGHT);

    CompletableFuture<Long> closeReturnedAt = new CompletableFuture<>();
    Thread closer =
        new Thread(
            () -> {
              supervisor.close();
              closeReturnedAt.complete(System.nanoTime());
            },
            "closer");
    closer.start();

    // calls made while close() starts are either taken into the drain (and answered for real), or
    // refused at once: one is refused within a bounded number of tries
    JsonRpcResponse refused = null;
    for (int tries = 0; tries < 1_000 && refused == null; tries++) {
      long before = System.nanoTime();
      JsonRpcResponse answer =
          RealFixture.await(
              RealFixture.call(supervisor, "late", SERVER, FixtureTools.ECHO, "message", "hi"),
              WITHIN);
      if (answer.isError()) {
        refused = answer;
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);
        assertTrue(
            tookMillis < SLEEP_MS / 2, "refused at once, not after the drain: " + tookMillis);
      } else {
        assertEquals("hi", RealFixture.text(answer));
      }
    }
    assertTrue(refused != null, "a call made after close() started is refused");
    assertEquals(JsonRpcErrorCodes.SHUTTING_DOWN, refused.error().code(), refused.toString());

    long lastAnswer = 0;
    for (CompletableFuture<Long> answer : answeredAt) {
      lastAnswer = Math.max(lastAnswer, answer.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS));
    }
    long closed = closeReturnedAt.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
    assertTrue(closed >= lastAnswer, "close() returned after the last answer");
    closer.join(WITHIN.toMillis());
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void aCallOutlivingTheDrainIsAnsweredShuttingDownAndCloseReturnsWithinTheDeadline()
      throws Exception {
    Duration drain = Duration.ofMillis(1_000);
    SessionSupervisor supervisor = start("drainTimeout = " + drain.toMillis() + "ms", 1);
    CompletionStage<JsonRpcResponse> outliving = sleep(supervisor, "caller", 60_000);
    awaitHeld(supervisor, 1);

    long before = System.nanoTime();
    supervisor.close();
    long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);

    JsonRpcResponse answer = RealFixture.await(outliving, Duration.ofSeconds(1));
    assertTrue(answer.isError(), answer.toString());
    assertEquals(JsonRpcErrorCodes.SHUTTING_DOWN, answer.error().code(), answer.toString());
    assertTrue(closeMillis >= drain.toMillis(), "close() waited for the drain: " + closeMillis);
    // the grace: closing the session (TERM, the child's exit), and the actor system's end
    assertTrue(closeMillis < drain.toMillis() + 5_000, "and no longer: " + closeMillis);
    ChildProcesses.assertNoneAlive();
  }

  /** {@code settings} over mcp-supervisor.supervisor; {@code instance}: a distinct server key. */
  private static SessionSupervisor start(String settings, int instance) {
    Config config =
        ConfigFactory.parseString("mcp-supervisor.supervisor {" + settings + "}")
            .withFallback(ConfigFactory.parseString("pekko.loglevel = WARNING"))
            .withFallback(ConfigFactory.load());
    return SessionSupervisor.start(
        RealFixture.config(RealFixture.stdio(SERVER, instance)),
        DefaultConnectors.create(),
        SupervisorObserver.NONE,
        config);
  }

  private static CompletionStage<JsonRpcResponse> sleep(
      SessionSupervisor supervisor, String context, int ms) {
    return RealFixture.call(supervisor, context, SERVER, FixtureTools.SLEEP, "ms", ms);
  }

  /** When the call was answered, failing unless with the tool's own answer. */
  private long sleptOrFail(JsonRpcResponse response) {
    assertFalse(response.isError(), "a call in flight gets its real answer: " + response);
    assertEquals("slept " + SLEEP_MS, RealFixture.text(response));
    return System.nanoTime();
  }

  /** Bounded polling of the snapshot until the server's sessions hold {@code calls} calls. */
  private static void awaitHeld(SessionSupervisor supervisor, int calls) throws Exception {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    int held = 0;
    while (System.nanoTime() < deadline) {
      held =
          supervisor.snapshot().toCompletableFuture().get().keys().stream()
              .flatMap(key -> key.sessions().stream())
              .mapToInt(DrainOnCloseTest::held)
              .sum();
      if (held == calls) {
        return;
      }
      Thread.sleep(20); // polling interval, not a synchronization
    }
    throw new AssertionError("the sessions hold " + held + " calls, not " + calls);
  }

  private static int held(SessionSnapshot session) {
    return session.inFlight() + session.stashed();
  }
}
