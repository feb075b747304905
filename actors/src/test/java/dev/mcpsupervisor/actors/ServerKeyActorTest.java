package dev.mcpsupervisor.actors;

import static dev.mcpsupervisor.actors.TestSupervisor.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.FakeConnector.FakeConnection;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.KeySnapshot;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.SessionSnapshot;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Leases, pooling, idle eviction and the life of key actors: the races Langflow's session manager
 * lost.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServerKeyActorTest {

  private static final int RACERS = 1_000;

  private ExecutorService threads;

  @BeforeAll
  void startThreads() {
    threads = Executors.newFixedThreadPool(16);
  }

  @AfterAll
  void stopThreads() {
    threads.shutdownNow();
  }

  /**
   * Runs {@code count} calls from many threads released at once; returns their stages in index
   * order.
   */
  private <T> List<CompletionStage<T>> race(int count, IntFunction<CompletionStage<T>> call)
      throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<CompletionStage<T>>> started = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int index = i;
      started.add(
          threads.submit(
              () -> {
                start.await();
                return call.apply(index);
              }));
    }
    start.countDown();
    List<CompletionStage<T>> stages = new ArrayList<>();
    for (Future<CompletionStage<T>> future : started) {
      stages.add(future.get(10, TimeUnit.SECONDS));
    }
    return stages;
  }

  private static long initializeCount(FakeConnection connection) {
    return connection.log.stream()
        .filter(
            m ->
                m instanceof dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest r
                    && McpMethods.INITIALIZE.equals(r.method()))
        .count();
  }

  @Test
  void concurrentAcquiresShareOneUpstreamSession() throws Exception {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      test.connector.holdInitialize =
          true; // every acquire arrives while the one session is still initializing
      List<CompletionStage<JsonNode>> acquires =
          race(RACERS, i -> test.supervisor.acquire("run-" + i, "alpha"));

      FakeConnection connection = test.connector.nextConnection();
      JsonNode initializeId = connection.nextRequest().id();
      assertEquals(1, test.onlyKey().sessions().size());
      connection.respond(initializeId, FakeConnector.initializeResult());

      for (CompletionStage<JsonNode> acquire : acquires) {
        assertEquals("fake", await(acquire).path("serverInfo").path("name").asText());
      }
      assertEquals(1, test.connector.connects.get());
      assertEquals(1, initializeCount(connection));
      assertEquals(1, test.observer.created.get());
      assertEquals(RACERS - 1, test.observer.reused.get());
      KeySnapshot key = test.onlyKey();
      assertEquals(RACERS, key.leases().size());
      assertEquals(RACERS, key.sessions().get(0).refCount());
      assertEquals("ready", key.sessions().get(0).state());
    }
  }

  @Test
  void concurrentReleasesOfOneContextRemoveOneLeaseAndIdleKeyLeavesNoState() throws Exception {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      await(test.supervisor.acquire("leaving", "alpha"));
      await(test.supervisor.acquire("staying", "alpha"));
      FakeConnection connection = test.connector.nextConnection();

      for (CompletionStage<Void> release :
          race(RACERS, i -> test.supervisor.release("leaving", "alpha"))) {
        await(release);
      }
      KeySnapshot key = test.onlyKey();
      assertEquals(Map.of("staying", key.sessions().get(0).sessionId()), key.leases());
      assertEquals(1, key.sessions().get(0).refCount());

      await(test.supervisor.release("staying", "alpha"));
      assertEquals(0, test.onlySession().refCount()); // also a barrier: the idle timer is running
      test.timePasses(TestSupervisor.IDLE_TIMEOUT);

      test.awaitAssert(() -> assertTrue(test.snapshot().keys().isEmpty()));
      assertTrue(connection.closed.get());
      assertEquals(1, test.observer.evicted("idle"));
      assertEquals(1, test.connector.connects.get());
    }
  }

  @Test
  void sessionIdsAreNeverRecycledAcrossEvictionsAndKeyIncarnations() {
    try (TestSupervisor test =
        TestSupervisor.start(TestSupervisor.server("alpha", Isolation.CONTEXT, 4, 1000))) {
      List<Long> ids = new ArrayList<>();
      for (int cycle = 0; cycle < 6; cycle++) {
        boolean keepKeyAlive = cycle % 2 == 0;
        if (keepKeyAlive) {
          await(test.supervisor.acquire("holder-" + cycle, "alpha"));
          ids.add(test.onlyKey().leases().get("holder-" + cycle));
        }
        String context = "cycle-" + cycle;
        await(test.supervisor.acquire(context, "alpha"));
        ids.add(test.onlyKey().leases().get(context));
        await(test.supervisor.release(context, "alpha")); // context isolation: closed at once
        if (keepKeyAlive) {
          await(test.supervisor.release("holder-" + cycle, "alpha"));
        }
        // the key actor stops: the next cycle runs on a new incarnation
        test.awaitAssert(() -> assertTrue(test.snapshot().keys().isEmpty()));
      }
      for (int i = 1; i < ids.size(); i++) {
        assertTrue(ids.get(i) > ids.get(i - 1), () -> "ids must only grow: " + ids);
      }
      assertEquals(ids.size(), test.connector.connects.get());
    }
  }

  @Test
  void idleEvictionRacingAcquiresNeverHandsOutADeadSession() throws Exception {
    int racers = 50;
    int rounds = 11;
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      test.connector.answerCalls =
          request -> JsonRpcResponse.success(request.id(), FakeConnector.text("ok"));
      int evictionsSeen = 0;
      int roundsWithoutEviction = 0;
      for (int round = 0; round < rounds; round++) {
        String first = "first-" + round;
        await(test.supervisor.acquire(first, "alpha"));
        await(test.supervisor.release(first, "alpha"));
        test.snapshot(); // barrier: the idle timer is running
        int evictionsBefore = test.observer.evicted("idle");
        int connectsBefore = test.connector.connects.get();

        // the idle timeout fires after (round * 5) of the racers were sent: before all of them in
        // round 0, after all of them were answered in the last round, among them in between
        int r = round;
        int firedAfter = Math.min(racers, round * 5);
        List<CompletionStage<JsonNode>> acquires =
            new ArrayList<>(
                race(firedAfter, i -> test.supervisor.acquire("racer-" + r + "-" + i, "alpha")));
        if (firedAfter == racers) {
          // the last round: the racers certainly come first
          acquires.forEach(TestSupervisor::await);
        }
        test.timePasses(TestSupervisor.IDLE_TIMEOUT);
        acquires.addAll(
            race(
                racers - firedAfter,
                i -> test.supervisor.acquire("racer-" + r + "-" + (firedAfter + i), "alpha")));
        acquires.forEach(TestSupervisor::await);

        // every racer holds its lease once its acquire is answered: an eviction never takes a lease
        // away
        Map<String, Long> leases = test.onlyKey().leases();
        for (int i = 0; i < racers; i++) {
          assertTrue(
              leases.containsKey("racer-" + r + "-" + i),
              "racer " + i + " of round " + r + " lost its lease");
        }
        int evicted = test.observer.evicted("idle") - evictionsBefore;
        assertEquals(
            evicted,
            test.connector.connects.get() - connectsBefore,
            "a new session only after an eviction");
        evictionsSeen += evicted;
        roundsWithoutEviction += evicted == 0 ? 1 : 0;
        for (int i = 0; i < racers; i++) {
          JsonRpcResponse response =
              await(
                  test.supervisor.request(
                      "racer-" + r + "-" + i,
                      "alpha",
                      McpMethods.TOOLS_CALL,
                      callParams("x"),
                      null));
          assertNull(response.error(), () -> "a racer got a dead session: " + response.error());
        }
        for (SessionSnapshot session : test.onlyKey().sessions()) {
          if (session.refCount() > 0) {
            assertEquals("ready", session.state());
          }
        }
        for (int i = 0; i < racers; i++) {
          await(test.supervisor.release("racer-" + r + "-" + i, "alpha"));
        }
      }
      // the two did overlap: some rounds evicted (and the racers got a fresh session), some kept
      // the idle one
      assertTrue(evictionsSeen >= 1, "no round evicted the idle session");
      assertTrue(
          roundsWithoutEviction >= 1, "every round evicted: the acquires never won the race");
    }
  }

  @Test
  void contextMovingToAnotherKeyKeepsItsNewLeaseWhenTheOldKeyCleansUpLate() throws Exception {
    try (TestSupervisor test =
        TestSupervisor.start(TestSupervisor.shared("alpha"), TestSupervisor.shared("beta"))) {
      test.connector.answerCalls =
          request -> JsonRpcResponse.success(request.id(), FakeConnector.text("ok"));
      int contexts = 100;
      for (int i = 0; i < contexts; i++) {
        await(test.supervisor.acquire("flow-" + i, "alpha"));
      }
      // the first half moves to beta, and only once the lease on beta exists does alpha clean up
      // (late)
      for (int i = 0; i < contexts / 2; i++) {
        await(test.supervisor.acquire("flow-" + i, "beta"));
      }
      assertEquals(
          contexts / 2,
          leasesOn(test, "beta"),
          "the new leases exist before the old key cleans up");
      List<CompletionStage<Void>> lateCleanups =
          race(contexts / 2, i -> test.supervisor.release("flow-" + i, "alpha"));
      lateCleanups.forEach(TestSupervisor::await);
      assertEquals(
          contexts / 2, leasesOn(test, "beta"), "alpha's late cleanup took no lease on beta");
      // the second half moves while alpha releases it, in any order
      List<CompletionStage<Object>> moves =
          race(
              contexts,
              i ->
                  i % 2 == 0
                      ? test.supervisor
                          .acquire("flow-" + (contexts / 2 + i / 2), "beta")
                          .thenApply(x -> x)
                      : test.supervisor
                          .release("flow-" + (contexts / 2 + i / 2), "alpha")
                          .thenApply(x -> x));
      moves.forEach(TestSupervisor::await);
      test.snapshot(); // barrier: alpha's idle timer is running
      test.timePasses(
          TestSupervisor.IDLE_TIMEOUT); // alpha's session closes, alpha's key actor stops

      test.awaitAssert(
          () -> {
            List<KeySnapshot> keys = test.snapshot().keys();
            assertEquals(1, keys.size());
            assertEquals("beta", keys.get(0).server());
            assertEquals(contexts, keys.get(0).leases().size());
          });
      for (int i = 0; i < contexts; i++) {
        assertNull(
            await(
                    test.supervisor.request(
                        "flow-" + i, "beta", McpMethods.TOOLS_CALL, callParams("x"), null))
                .error());
      }
      for (int i = 0; i < contexts; i++) {
        await(test.supervisor.releaseAll("flow-" + i));
      }
      assertTrue(test.onlyKey().leases().isEmpty(), "releaseAll found every lease on beta");
    }
  }

  private static int leasesOn(TestSupervisor test, String server) {
    return test.snapshot().keys().stream()
        .filter(key -> key.server().equals(server))
        .mapToInt(key -> key.leases().size())
        .sum();
  }

  @Test
  void contextIsolationGivesEveryContextItsOwnSession() {
    try (TestSupervisor test =
        TestSupervisor.start(TestSupervisor.server("alpha", Isolation.CONTEXT, 4, 1000))) {
      for (String context : List.of("a", "b", "c")) {
        await(test.supervisor.acquire(context, "alpha"));
      }
      KeySnapshot key = test.onlyKey();
      assertEquals(3, key.sessions().size());
      assertEquals(3, key.leases().values().stream().distinct().count());
      assertEquals(3, test.connector.connects.get());
      assertEquals(0, test.observer.reused.get());
    }
  }

  @Test
  void contextIsolationOpensAtMostMaxSessionsAndRefusesFurtherContextsAsOverloaded()
      throws Exception {
    try (TestSupervisor test =
        TestSupervisor.start(TestSupervisor.server("alpha", Isolation.CONTEXT, 3, 1000))) {
      List<CompletionStage<JsonNode>> acquires =
          race(RACERS, i -> test.supervisor.acquire("ctx-" + i, "alpha"));
      int granted = 0;
      for (CompletionStage<JsonNode> acquire : acquires) {
        try {
          acquire.toCompletableFuture().get(10, TimeUnit.SECONDS);
          granted++;
        } catch (java.util.concurrent.ExecutionException e) {
          var error = ((SupervisorException) e.getCause()).error();
          assertEquals(dev.mcpsupervisor.protocol.JsonRpcErrorCodes.OVERLOADED, error.code());
          assertEquals(
              "alpha is overloaded: its 3 sessions (maxSessions) are all in use", error.message());
        }
      }
      assertEquals(3, granted);
      assertEquals(3, test.connector.connects.get());
      assertEquals(3, test.onlyKey().sessions().size());

      // a context that leaves closes its session; once it has stopped, another context gets one
      String leaving = test.onlyKey().leases().keySet().iterator().next();
      await(test.supervisor.release(leaving, "alpha"));
      test.awaitAssert(
          () -> {
            try {
              test.supervisor
                  .acquire("late", "alpha")
                  .toCompletableFuture()
                  .get(10, TimeUnit.SECONDS);
            } catch (Exception stillOverloaded) {
              throw new AssertionError(stillOverloaded);
            }
          });
      assertEquals(4, test.connector.connects.get());
    }
  }

  @Test
  void sharedIsolationReusesOneSessionForEveryContext() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      for (String context : List.of("a", "b", "c")) {
        await(test.supervisor.acquire(context, "alpha"));
      }
      KeySnapshot key = test.onlyKey();
      assertEquals(1, key.sessions().size());
      assertEquals(3, key.sessions().get(0).refCount());
      assertEquals(1, test.connector.connects.get());
      assertEquals(2, test.observer.reused.get());
    }
  }

  @Test
  void sharedIsolationOpensAnotherSessionOnlyWhenEveryOneIsFull() {
    try (TestSupervisor test =
        TestSupervisor.start(TestSupervisor.server("alpha", Isolation.SHARED, 2, 1))) {
      await(test.supervisor.acquire("a", "alpha"));
      FakeConnection first = test.connector.nextConnection();
      test.supervisor.request("a", "alpha", McpMethods.TOOLS_CALL, callParams("slow"), null);
      first.nextRequest(); // session 1 now has its one request in flight: it is full
      assertEquals(
          1, test.onlySession().inFlight()); // barrier: the key actor has heard that it is full
      await(test.supervisor.acquire("b", "alpha"));
      await(test.supervisor.acquire("c", "alpha"));
      KeySnapshot key = test.onlyKey();
      assertEquals(2, key.sessions().size());
      assertEquals(2, test.connector.connects.get());
      assertFalse(key.leases().get("b").equals(key.leases().get("a")));
    }
  }

  @Test
  void unknownServerIsAnsweredWithAClearError() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      var error =
          TestSupervisor.awaitError(test.supervisor.request("a", "nope", "tools/list", null, null));
      assertEquals(dev.mcpsupervisor.protocol.JsonRpcErrorCodes.UNKNOWN_SERVER, error.code());
      assertEquals("unknown server nope", error.message());
      CompletionStage<JsonNode> acquire = test.supervisor.acquire("a", "nope");
      var failure =
          org.junit.jupiter.api.Assertions.assertThrows(
              java.util.concurrent.ExecutionException.class,
              () -> acquire.toCompletableFuture().get(10, TimeUnit.SECONDS));
      assertEquals(
          dev.mcpsupervisor.protocol.JsonRpcErrorCodes.UNKNOWN_SERVER,
          ((SupervisorException) failure.getCause()).error().code());
      assertTrue(test.snapshot().keys().isEmpty());
    }
  }

  static JsonNode callParams(String tool) {
    var params = JsonRpcCodec.emptyObject();
    params.put("name", tool);
    params.putObject("arguments");
    return params;
  }
}
