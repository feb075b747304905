package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The fixture's {@code crash} tool in the middle of 200 concurrent calls: 100 slow calls ({@code
 * sleep}) and 50 {@code echo} calls go first, then the crash, then 50 read-only calls ({@code
 * read_only_echo}, {@code idempotent_echo}, {@code tools/list}) that the dying server cannot
 * answer. Records when each answer came.
 */
final class CrashUnderLoad {

  static final int SLOW_CALLS = 100;
  static final int ECHO_CALLS = 50;
  static final int READ_ONLY_CALLS = 50;
  static final long SLEEP_MILLIS = 1000;

  /**
   * Far below the 30 s request timeout: an answer later than this means the death was not noticed.
   */
  static final Duration ANSWERS_WITHIN = Duration.ofSeconds(25);

  /** Calls the server may answer with "session lost" when they were in flight at the crash. */
  private static final Set<String> MAY_BE_LOST =
      Set.of(FixtureTools.SLEEP, FixtureTools.ECHO, FixtureTools.CRASH);

  record Call(
      String tool, String payload, CompletableFuture<JsonRpcResponse> answer, long[] answeredAt) {}

  final List<Call> calls = new ArrayList<>();
  long crashSentAt;
  private final SessionSupervisor supervisor;
  private final String context;
  private final String server;

  CrashUnderLoad(SessionSupervisor supervisor, String context, String server) {
    this.supervisor = supervisor;
    this.context = context;
    this.server = server;
  }

  /** Fires everything; returns once every call is on its way (not answered). */
  void fire() throws InterruptedException {
    ExecutorService callers = Executors.newFixedThreadPool(32);
    try {
      List<Supplier<Call>> before = new ArrayList<>();
      for (int i = 0; i < SLOW_CALLS; i++) {
        before.add(() -> call(FixtureTools.SLEEP, "ms", SLEEP_MILLIS, "slept " + SLEEP_MILLIS));
      }
      for (int i = 0; i < ECHO_CALLS; i++) {
        String payload = "echo-" + i;
        before.add(() -> call(FixtureTools.ECHO, "message", payload, payload));
      }
      fireConcurrently(callers, before);

      crashSentAt = System.nanoTime();
      calls.add(call(FixtureTools.CRASH, null, null, null));

      List<Supplier<Call>> after = new ArrayList<>();
      for (int i = 0; i < READ_ONLY_CALLS; i++) {
        String payload = "read-only-" + i;
        switch (i % 3) {
          case 0 -> after.add(() -> call(FixtureTools.READ_ONLY_ECHO, "message", payload, payload));
          case 1 ->
              after.add(() -> call(FixtureTools.IDEMPOTENT_ECHO, "message", payload, payload));
          default -> after.add(this::toolsList);
        }
      }
      fireConcurrently(callers, after);
    } finally {
      callers.shutdown();
    }
  }

  private void fireConcurrently(ExecutorService callers, List<Supplier<Call>> work)
      throws InterruptedException {
    CountDownLatch start = new CountDownLatch(1);
    List<CompletableFuture<Call>> fired = new ArrayList<>();
    for (Supplier<Call> call : work) {
      fired.add(
          CompletableFuture.supplyAsync(
              () -> {
                awaitQuietly(start);
                return call.get();
              },
              callers));
    }
    start.countDown();
    for (CompletableFuture<Call> call : fired) {
      calls.add(call.join());
    }
  }

  private Call call(String tool, String argument, Object value, String expected) {
    return track(
        tool, expected, RealFixture.call(supervisor, context, server, tool, argument, value));
  }

  private Call toolsList() {
    return track("tools/list", null, supervisor.request(context, server, "tools/list", null, null));
  }

  private static Call track(String tool, String expected, CompletionStage<JsonRpcResponse> answer) {
    long[] answeredAt = new long[1];
    CompletableFuture<JsonRpcResponse> recorded =
        answer
            .toCompletableFuture()
            .whenComplete((response, failure) -> answeredAt[0] = System.nanoTime());
    return new Call(tool, expected, recorded, answeredAt);
  }

  /**
   * Every call answered well within its deadline; failures only "session lost" (retryable) and only
   * for calls that change state; read-only calls all succeed with their own payload; the first
   * "session lost" answer within {@code detectWithin} of {@code crashedAt} (a {@link
   * System#nanoTime()}). Returns how many calls were lost.
   */
  long assertOutcome(Duration detectWithin, long crashedAt) {
    CompletableFuture.allOf(calls.stream().map(Call::answer).toArray(CompletableFuture[]::new))
        .orTimeout(ANSWERS_WITHIN.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionally(timeout -> fail("not every call was answered within " + ANSWERS_WITHIN))
        .join();
    long firstLostAt = Long.MAX_VALUE;
    long lost = 0;
    for (Call call : calls) {
      JsonRpcResponse response = call.answer().join();
      if (response.isError()) {
        assertTrue(
            RealFixture.isSessionLost(response),
            () -> call.tool() + " failed otherwise: " + response.error());
        assertTrue(
            MAY_BE_LOST.contains(call.tool()),
            () -> "read-only " + call.tool() + " failed: " + response.error());
        firstLostAt = Math.min(firstLostAt, call.answeredAt()[0]);
        lost++;
      } else if (call.tool().equals("tools/list")) {
        assertTrue(
            response.result().path("tools").size() > 5,
            () -> "tools/list answered " + response.result());
      } else {
        assertEquals(
            call.payload(), RealFixture.text(response), () -> "wrong answer to " + call.tool());
      }
    }
    JsonRpcResponse crash =
        calls.stream()
            .filter(c -> c.tool().equals(FixtureTools.CRASH))
            .findFirst()
            .orElseThrow()
            .answer()
            .join();
    assertTrue(
        RealFixture.isSessionLost(crash), () -> "the crash call itself is lost, got " + crash);
    long detectedMillis = TimeUnit.NANOSECONDS.toMillis(firstLostAt - crashedAt);
    System.out.printf(
        "crash under load: %d of %d calls lost; first 'session lost' answer %d ms after the crash, %d ms after the crash"
            + " call was sent%n",
        lost,
        calls.size(),
        detectedMillis,
        TimeUnit.NANOSECONDS.toMillis(firstLostAt - crashSentAt));
    assertTrue(
        detectedMillis < detectWithin.toMillis(),
        "first 'session lost' answer " + detectedMillis + " ms after the crash");
    return lost;
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
