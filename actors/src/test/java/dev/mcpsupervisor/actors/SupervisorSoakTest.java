package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * 50 contexts × 200 calls across 5 stdio fixture servers, contexts releasing and re-acquiring at
 * random, one server crashed every second. Every call is answered, no answer is another call's,
 * only state-changing calls in flight at a crash may be lost, and no process outlives the
 * supervisor.
 */
class SupervisorSoakTest {

  private static final int KEYS = 5;
  private static final int CONTEXTS = 50;
  private static final int CALLS_PER_CONTEXT = 200;

  /**
   * Pauses between one context's calls (mean ~50 ms), so that the run spans ~10-15 s of crashes.
   */
  private static final int MAX_PAUSE_MILLIS = 100;

  private static final int MAX_CRASHES = 15;
  private static final Duration RUN_LIMIT = Duration.ofSeconds(90);

  private final ScheduledExecutorService pacing = Executors.newScheduledThreadPool(4);
  private final AtomicInteger succeeded = new AtomicInteger();
  private final AtomicInteger lost = new AtomicInteger();
  private final AtomicInteger releases = new AtomicInteger();
  private final Queue<String> problems = new ConcurrentLinkedQueue<>();
  private final Set<Long> fixturePids = ConcurrentHashMap.newKeySet();
  private final Set<Long> crashedPids = ConcurrentHashMap.newKeySet();

  @AfterAll
  static void noProcessOutlivesTheTests() {
    ChildProcesses.assertNoneAlive();
  }

  private static String server(int key) {
    return "soak-" + key;
  }

  @Test
  void contextsKeepGettingTheirOwnAnswersWhileServersCrash() throws Exception {
    ServerConfig[] servers =
        IntStream.range(0, KEYS)
            .mapToObj(key -> RealFixture.stdio(server(key), key))
            .toArray(ServerConfig[]::new);
    AtomicInteger crashes = new AtomicInteger();
    try (SessionSupervisor supervisor = SessionSupervisor.start(RealFixture.config(servers))) {
      // all five processes up before the clock starts
      IntStream.range(0, KEYS)
          .forEach(key -> fixturePids.add(RealFixture.pid(supervisor, "warm-up", server(key))));

      CompletableFuture<?>[] contexts =
          IntStream.range(0, CONTEXTS)
              .mapToObj(context -> runContext(supervisor, "context-" + context, 0))
              .toArray(CompletableFuture[]::new);
      CompletableFuture<Void> allDone = CompletableFuture.allOf(contexts);
      pacing.scheduleAtFixedRate(
          () -> {
            int crash = crashes.get();
            if (!allDone.isDone() && crash < MAX_CRASHES) {
              crashes.incrementAndGet();
              crashOne(supervisor, server(crash % KEYS));
            }
          },
          1,
          1,
          TimeUnit.SECONDS);

      allDone.get(RUN_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
      IntStream.range(0, KEYS)
          .forEach(key -> fixturePids.add(RealFixture.pid(supervisor, "warm-up", server(key))));
    } finally {
      pacing.shutdownNow();
    }

    System.out.printf(
        "soak: %d answered, %d lost at a crash, %d crash attempts, %d processes killed, %d releases, %d fixture processes%n",
        succeeded.get(),
        lost.get(),
        crashes.get(),
        crashedPids.size(),
        releases.get(),
        fixturePids.size());
    assertEquals(List.of(), List.copyOf(problems));
    assertEquals(CONTEXTS * CALLS_PER_CONTEXT, succeeded.get() + lost.get(), "every call answered");
    // processes really killed, told apart by pid and seen gone in the OS process table, not crash
    // attempts
    long killed = crashedPids.stream().filter(pid -> !ChildProcesses.isAlive(pid)).count();
    assertEquals(crashedPids.size(), killed, "every crashed process is gone: " + crashedPids);
    assertTrue(
        killed >= 10,
        "processes killed during the run: " + killed + " of " + crashes.get() + " crash attempts");
    for (long pid : fixturePids) {
      assertFalse(
          ChildProcesses.isAlive(pid), "fixture process " + pid + " outlived the supervisor");
    }
    ChildProcesses.assertNoneAlive();
  }

  /**
   * One context's calls, one after the other with random pauses; completes after the last answer.
   */
  private CompletableFuture<Void> runContext(
      SessionSupervisor supervisor, String context, int call) {
    if (call == CALLS_PER_CONTEXT) {
      return CompletableFuture.completedFuture(null);
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    String server = server(random.nextInt(KEYS));
    CompletableFuture<Void> before = CompletableFuture.completedFuture(null);
    if (random.nextInt(20) == 0) {
      releases.incrementAndGet();
      before = supervisor.release(context, server).toCompletableFuture();
      if (random.nextBoolean()) {
        before =
            before.thenCompose(
                released -> supervisor.acquire(context, server).thenApply(result -> null));
      }
    }
    boolean readOnly = random.nextBoolean();
    String tool = readOnly ? FixtureTools.READ_ONLY_ECHO : FixtureTools.ECHO;
    String payload = context + "/" + call + "/" + random.nextLong();
    return before
        .thenCompose(
            ready -> RealFixture.call(supervisor, context, server, tool, "message", payload))
        .thenAccept(answer -> check(context, tool, payload, answer))
        .exceptionally(
            failure -> {
              problems.add(context + " call " + call + ": " + failure);
              return null;
            })
        .thenCompose(checked -> pause(random.nextInt(MAX_PAUSE_MILLIS)))
        .thenCompose(paused -> runContext(supervisor, context, call + 1));
  }

  private void check(String context, String tool, String payload, JsonRpcResponse answer) {
    if (!answer.isError()) {
      String text = answer.result().path("content").path(0).path("text").asText();
      if (text.equals(payload)) {
        succeeded.incrementAndGet();
      } else {
        problems.add(context + " got another call's answer: " + text + " for " + payload);
      }
    } else if (tool.equals(FixtureTools.ECHO) && RealFixture.isSessionLost(answer)) {
      lost.incrementAndGet();
    } else {
      problems.add(context + " " + tool + " failed: " + answer.error());
    }
  }

  private CompletableFuture<Void> pause(long millis) {
    CompletableFuture<Void> paused = new CompletableFuture<>();
    pacing.schedule(() -> paused.complete(null), millis, TimeUnit.MILLISECONDS);
    return paused;
  }

  /**
   * Learns the server's pid (for the leak check) and crashes it; the crash call itself is lost by
   * design.
   */
  private void crashOne(SessionSupervisor supervisor, String server) {
    RealFixture.call(supervisor, "chaos", server, FixtureTools.PID, null, null)
        .thenCompose(
            pidAnswer -> {
              long pid = pidAnswer.isError() ? -1 : Long.parseLong(RealFixture.text(pidAnswer));
              if (pid > 0) {
                fixturePids.add(pid);
              }
              return RealFixture.call(supervisor, "chaos", server, FixtureTools.CRASH, null, null)
                  .thenAccept(
                      crash -> {
                        if (!RealFixture.isSessionLost(crash)) {
                          problems.add("crash of " + server + " answered " + crash);
                        } else if (pid > 0) {
                          crashedPids.add(
                              pid); // asked to crash, and its session was lost: checked dead below
                        }
                      });
            });
  }
}
