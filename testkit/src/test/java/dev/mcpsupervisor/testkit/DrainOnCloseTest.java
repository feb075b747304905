package dev.mcpsupervisor.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.SessionSnapshot;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * close() drains: the calls in flight when it starts get their real answers (until {@code
 * drainTimeout}), a call made after it started is refused at once, and no child process outlives
 * it. Against a scripted server over stdio.
 */
@McpSupervisorTest
class DrainOnCloseTest {

  private static final String SERVER = "scripted";
  private static final int IN_FLIGHT = 50;
  private static final Duration SLEEP = Duration.ofSeconds(2);
  private static final String SLEPT = "slept";
  private static final Duration WITHIN = Duration.ofSeconds(30);

  /** An echo, a call that takes {@link #SLEEP}, and one that outlives any drain. */
  public static final class Slow implements Scenario {
    @Override
    public void define(Script script) {
      script.tool(CrashUnderLoad.ECHO).answer(args -> String.valueOf(args.get("message")));
      script.tool("sleep").delay(SLEEP, SLEPT);
      script.tool("outlive").delay(Duration.ofMinutes(1), "too late");
    }
  }

  @Test
  void everyCallInFlightGetsItsAnswerBeforeCloseReturnsAndNewCallsAreRefusedAtOnce(
      SupervisorTestKit kit) throws Exception {
    kit.stdio(SERVER, Slow.class);
    // all of them sent upstream at once, none waiting behind the default 32
    kit.option(SERVER, "maxInflightPerSession", IN_FLIGHT);
    SessionSupervisor supervisor = kit.supervisor();
    List<CompletableFuture<Long>> answeredAt = new ArrayList<>();
    for (int i = 0; i < IN_FLIGHT; i++) {
      answeredAt.add(
          call(supervisor, "caller-" + i, "sleep")
              .thenApply(DrainOnCloseTest::sleptOrFail)
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
          CrashUnderLoad.await(
              CrashUnderLoad.call(supervisor, "late", SERVER, CrashUnderLoad.ECHO, "hi"));
      if (answer.isError()) {
        refused = answer;
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);
        assertTrue(
            tookMillis < SLEEP.toMillis() / 2,
            "refused at once, not after the drain: " + tookMillis);
      } else {
        assertEquals("hi", CrashUnderLoad.text(answer));
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
  void aCallOutlivingTheDrainIsAnsweredShuttingDownAndCloseReturnsWithinTheDeadline(
      SupervisorTestKit kit) throws Exception {
    Duration drain = Duration.ofMillis(1_000);
    kit.stdio(SERVER, Slow.class);
    kit.settings("mcp-supervisor.supervisor.drainTimeout = " + drain.toMillis() + "ms");
    SessionSupervisor supervisor = kit.supervisor();
    CompletionStage<JsonRpcResponse> outliving = call(supervisor, "caller", "outlive");
    awaitHeld(supervisor, 1);

    long before = System.nanoTime();
    supervisor.close();
    long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);

    JsonRpcResponse answer = outliving.toCompletableFuture().get(1, TimeUnit.SECONDS);
    assertTrue(answer.isError(), answer.toString());
    assertEquals(JsonRpcErrorCodes.SHUTTING_DOWN, answer.error().code(), answer.toString());
    assertTrue(closeMillis >= drain.toMillis(), "close() waited for the drain: " + closeMillis);
    // the grace: closing the session (TERM, the child's exit), and the actor system's end
    assertTrue(closeMillis < drain.toMillis() + 5_000, "and no longer: " + closeMillis);
    ChildProcesses.assertNoneAlive();
  }

  private static CompletionStage<JsonRpcResponse> call(
      SessionSupervisor supervisor, String context, String tool) {
    return CrashUnderLoad.call(supervisor, context, SERVER, tool, null);
  }

  /** When the call was answered, failing unless with the tool's own answer. */
  private static long sleptOrFail(JsonRpcResponse response) {
    assertFalse(response.isError(), "a call in flight gets its real answer: " + response);
    assertEquals(SLEPT, CrashUnderLoad.text(response));
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
