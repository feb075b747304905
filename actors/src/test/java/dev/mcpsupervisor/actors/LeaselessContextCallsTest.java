package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.actors.call.CallOptions;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Leaseless calls of one context to an {@code isolation: context} server (the fixture over stdio)
 * share the session the context leases for them, which ends with the last of them, never under
 * another in flight; and a lease the context took itself outlives its leaseless calls. The first
 * answer once ended the session the others still waited on.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaselessContextCallsTest {

  private static final int CALLERS = 100;
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String SERVER = "per-context";

  private final SessionSupervisor supervisor =
      SessionSupervisor.start(
          RealFixture.config(RealFixture.contextIsolated(RealFixture.stdio(SERVER, 31))));

  @AfterAll
  void stopEverything() {
    supervisor.close();
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void racingLeaselessCallsOfOneContextShareItsSessionUntilTheLastIsAnswered() throws Exception {
    List<CompletableFuture<CallOutcome>> calls = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      calls.add(
          supervisor
              .call(
                  "run-1",
                  SERVER,
                  McpMethods.TOOLS_CALL,
                  RealFixture.toolCall(FixtureTools.COUNT, null, null),
                  CallOptions.defaults().withoutLease())
              .toCompletableFuture());
    }
    List<String> counts = new ArrayList<>();
    for (CompletableFuture<CallOutcome> call : calls) {
      JsonRpcResponse answer =
          ((CallOutcome.Complete) call.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).response();
      counts.add(RealFixture.text(answer));
    }
    Set<String> distinct = counts.stream().collect(Collectors.toSet());
    assertEquals(CALLERS, distinct.size(), "one session counted every call once: " + counts);
    awaitNoLease("run-1");
  }

  /** The last call's release ends the lease: bounded at {@link #WAIT}. */
  private void awaitNoLease(String context) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    SupervisorSnapshot snapshot;
    do {
      snapshot = supervisor.snapshot().toCompletableFuture().get(10, TimeUnit.SECONDS);
      if (snapshot.keys().stream().noneMatch(key -> key.leases().containsKey(context))) {
        return;
      }
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    } while (System.nanoTime() < deadline);
    throw new AssertionError("the lease of " + context + " outlived its calls: " + snapshot);
  }

  @Test
  void aLeaseTheContextTookItselfOutlivesItsLeaselessCalls() throws Exception {
    supervisor.acquire("run-2", SERVER).toCompletableFuture().get(30, TimeUnit.SECONDS);
    CallOutcome outcome =
        supervisor
            .call(
                "run-2",
                SERVER,
                McpMethods.TOOLS_CALL,
                RealFixture.toolCall(FixtureTools.COUNT, null, null),
                CallOptions.defaults().withoutLease())
            .toCompletableFuture()
            .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertFalse(((CallOutcome.Complete) outcome).response().isError(), outcome.toString());
    // the call's answer is in: anything it released has reached the key actor before this snapshot
    String second =
        RealFixture.text(
            RealFixture.await(
                RealFixture.call(supervisor, "run-2", SERVER, FixtureTools.COUNT, null, null),
                WAIT));
    assertEquals("2", second, "the same session, not a new one");
    SupervisorSnapshot snapshot =
        supervisor.snapshot().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertTrue(
        snapshot.keys().stream().anyMatch(key -> key.leases().containsKey("run-2")),
        "the acquired lease stays: " + snapshot);
    supervisor.release("run-2", SERVER).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
