package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.base.ConfigChange;
import dev.mcpsupervisor.actors.base.SupervisorObserver;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.upstream.DefaultConnectors;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@link SessionSupervisor#reconfigure} while 20 callers call an unchanged server, against the real
 * fixture over stdio: the unchanged server is untouched, the calls in flight on a changed and a
 * removed server get their real answers, then their processes end.
 */
class ReconfigureTest {

  private static final int CALLERS = 20;
  private static final int SLEEP_MS = 1_500;
  private static final Duration WITHIN = Duration.ofSeconds(60);

  @AfterAll
  static void noProcessOutlivesTheTests() {
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void addChangeRemoveUnderLoadLeavesTheUnchangedServerAlone() throws Exception {
    SupervisorConfig before =
        RealFixture.config(
            RealFixture.stdio("keep", 1),
            RealFixture.stdio("change", 2),
            RealFixture.stdio("gone", 3));
    SupervisorConfig after =
        RealFixture.config(
            RealFixture.stdio("keep", 1),
            RealFixture.stdio("change", 5),
            RealFixture.stdio("added", 4));
    try (SessionSupervisor supervisor = start(before)) {
      long keepPid = RealFixture.pid(supervisor, "probe", "keep");
      long changePid = RealFixture.pid(supervisor, "probe", "change");
      long gonePid = RealFixture.pid(supervisor, "probe", "gone");

      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger answered = new AtomicInteger();
      List<String> wrong = new ArrayList<>();
      CountDownLatch callersDone = new CountDownLatch(CALLERS);
      for (int i = 0; i < CALLERS; i++) {
        String caller = "caller-" + i;
        Thread thread =
            new Thread(
                () -> {
                  int n = 0;
                  while (!stop.get()) {
                    String message = caller + "#" + n++;
                    JsonRpcResponse answer =
                        RealFixture.await(
                            RealFixture.call(
                                supervisor, caller, "keep", FixtureTools.ECHO, "message", message),
                            WITHIN);
                    if (answer.isError() || !message.equals(RealFixture.text(answer))) {
                      synchronized (wrong) {
                        wrong.add(answer.toString());
                      }
                    }
                    answered.incrementAndGet();
                  }
                  callersDone.countDown();
                },
                caller);
        thread.setDaemon(true);
        thread.start();
      }
      awaitAnswered(answered, 200);

      CompletionStage<JsonRpcResponse> onChanged = sleep(supervisor, "change");
      CompletionStage<JsonRpcResponse> onRemoved = sleep(supervisor, "gone");
      awaitHeld(supervisor, "change");
      awaitHeld(supervisor, "gone");

      ConfigChange change =
          supervisor.reconfigure(after).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals(List.of("added"), change.added());
      assertEquals(List.of("gone"), change.removed());
      assertEquals(List.of("change"), change.changed());
      assertEquals(List.of("keep"), change.unchanged());

      // new calls: the changed server's on a new process, the removed one unknown
      long newChangePid = RealFixture.pid(supervisor, "probe", "change");
      assertNotEquals(changePid, newChangePid);
      JsonRpcResponse unknown =
          RealFixture.await(
              RealFixture.call(supervisor, "probe", "gone", FixtureTools.ECHO, "message", "x"),
              WITHIN);
      assertEquals(JsonRpcErrorCodes.UNKNOWN_SERVER, unknown.error().code(), unknown.toString());
      assertEquals(
          "hi",
          RealFixture.text(
              RealFixture.await(
                  RealFixture.call(
                      supervisor, "probe", "added", FixtureTools.ECHO, "message", "hi"),
                  WITHIN)));

      // the calls in flight on the retired keys got their real answers, then their processes end
      assertEquals("slept " + SLEEP_MS, RealFixture.text(RealFixture.await(onChanged, WITHIN)));
      assertEquals("slept " + SLEEP_MS, RealFixture.text(RealFixture.await(onRemoved, WITHIN)));
      awaitExit(changePid);
      awaitExit(gonePid);

      int answeredAtReload = answered.get();
      awaitAnswered(answered, answeredAtReload + 200);
      stop.set(true);
      assertTrue(callersDone.await(WITHIN.toMillis(), TimeUnit.MILLISECONDS));
      assertEquals(List.of(), wrong, "failed or wrong answers on the unchanged server");
      assertEquals(keepPid, RealFixture.pid(supervisor, "probe", "keep"));
      assertTrue(ChildProcesses.isAlive(keepPid));
      awaitKeys(supervisor, List.of("added", "change", "keep"));
    }
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void twoHundredReconfigurationsLeaveNoKeyActorAndNoProcessBehind() throws Exception {
    try (SessionSupervisor supervisor =
        start(RealFixture.config(RealFixture.stdio("keep", 1), RealFixture.stdio("flip", 10)))) {
      long keepPid = RealFixture.pid(supervisor, "probe", "keep");
      for (int i = 1; i <= 200; i++) {
        supervisor
            .reconfigure(
                RealFixture.config(
                    RealFixture.stdio("keep", 1), RealFixture.stdio("flip", 10 + i % 2)))
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
        assertEquals(
            "#" + i,
            RealFixture.text(
                RealFixture.await(
                    RealFixture.call(
                        supervisor, "probe", "keep", FixtureTools.ECHO, "message", "#" + i),
                    WITHIN)));
        if (i % 20 == 10) {
          // a process for the flipped server, which the next reconfiguration retires
          RealFixture.pid(supervisor, "probe", "flip");
        }
      }
      assertEquals(keepPid, RealFixture.pid(supervisor, "probe", "keep"));
      awaitKeys(supervisor, List.of("keep"));
      // the fixture of "keep" is the only process left
      long deadline = System.nanoTime() + WITHIN.toNanos();
      List<ProcessHandle> alive = children();
      while (alive.size() != 1 && System.nanoTime() < deadline) {
        Thread.sleep(50); // polling the process table: no event for a process's exit here
        alive = children();
      }
      assertEquals(List.of(keepPid), alive.stream().map(ProcessHandle::pid).toList());
    }
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void aClusterChangeIsRefusedAndChangesNothing() throws Exception {
    SupervisorConfig config = RealFixture.config(RealFixture.stdio("keep", 1));
    try (SessionSupervisor supervisor = start(config)) {
      SupervisorConfig withCluster =
          new SupervisorConfig(
              config.servers(),
              GatewayConfig.builder()
                  .host("127.0.0.1")
                  .port(0)
                  .maxBodyBytes(1 << 20)
                  .sessionIdleTimeout(Duration.ofMinutes(5))
                  .build()
                  .withCluster(new ClusterConfig("127.0.0.1", 25520, List.of(), "x".repeat(32))));
      Exception refused =
          assertThrows(
              Exception.class,
              () -> supervisor.reconfigure(withCluster).toCompletableFuture().get());
      assertTrue(refused.getCause() instanceof IllegalArgumentException, refused.toString());
      assertEquals(config, supervisor.config());
    }
  }

  private static SessionSupervisor start(SupervisorConfig config) {
    return SessionSupervisor.start(
        config,
        DefaultConnectors.create(),
        SupervisorObserver.NONE,
        ConfigFactory.parseString("pekko.loglevel = WARNING").withFallback(ConfigFactory.load()));
  }

  private static CompletionStage<JsonRpcResponse> sleep(
      SessionSupervisor supervisor, String server) {
    return RealFixture.call(supervisor, "sleeper", server, FixtureTools.SLEEP, "ms", SLEEP_MS);
  }

  private static List<ProcessHandle> children() {
    return ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList();
  }

  private static void awaitAnswered(AtomicInteger answered, int atLeast) throws Exception {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    while (answered.get() < atLeast) {
      assertTrue(System.nanoTime() < deadline, "only " + answered.get() + " answers");
      Thread.sleep(10); // polling a counter
    }
  }

  private static void awaitExit(long pid) throws Exception {
    ProcessHandle process = ProcessHandle.of(pid).orElse(null);
    if (process != null) {
      process.onExit().get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
    }
    assertFalse(ChildProcesses.isAlive(pid));
  }

  /** Bounded polling of the snapshot until the server's sessions hold a call. */
  private static void awaitHeld(SessionSupervisor supervisor, String server) throws Exception {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    while (true) {
      int held =
          snapshot(supervisor).keys().stream()
              .filter(key -> key.server().equals(server))
              .flatMap(key -> key.sessions().stream())
              .mapToInt(session -> session.inFlight() + session.stashed())
              .sum();
      if (held > 0) {
        return;
      }
      assertTrue(System.nanoTime() < deadline, server + " holds no call");
      Thread.sleep(20); // polling interval, not a synchronization
    }
  }

  /** Bounded polling until the snapshot's key actors serve exactly {@code servers}, one each. */
  private static void awaitKeys(SessionSupervisor supervisor, List<String> servers)
      throws Exception {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    List<String> keys = List.of();
    while (System.nanoTime() < deadline) {
      keys =
          snapshot(supervisor).keys().stream()
              .map(SupervisorSnapshot.KeySnapshot::server)
              .sorted()
              .toList();
      if (keys.equals(servers)) {
        return;
      }
      Thread.sleep(20); // polling interval, not a synchronization
    }
    assertEquals(servers, keys, "key actors left");
  }

  private static SupervisorSnapshot snapshot(SessionSupervisor supervisor) throws Exception {
    return supervisor.snapshot().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
