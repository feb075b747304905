package dev.mcpsupervisor.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
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
 * A crash in the middle of 200 concurrent calls to a scripted server ({@link Tools}): 100 slow
 * calls ({@code sleep}) and 50 {@code echo} calls go first, then {@code crash}, then 50 read-only
 * calls ({@code read_only_echo}, {@code idempotent_echo}, {@code tools/list}) that the dying server
 * cannot answer. Records when each answer came.
 */
final class CrashUnderLoad {

  static final String SLEEP = "sleep";
  static final String ECHO = "echo";
  static final String CRASH = "crash";
  static final String READ_ONLY_ECHO = "read_only_echo";
  static final String IDEMPOTENT_ECHO = "idempotent_echo";

  static final int SLOW_CALLS = 100;
  static final int ECHO_CALLS = 50;
  static final int READ_ONLY_CALLS = 50;
  static final Duration SLEEP_TIME = Duration.ofSeconds(1);
  static final String SLEPT = "slept";

  /** The server's deadline for a call: an answer later than {@link #ANSWERS_WITHIN} is far late. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /** Far below {@link #REQUEST_TIMEOUT}: a later answer means the death was not noticed. */
  static final Duration ANSWERS_WITHIN = Duration.ofSeconds(25);

  /** Calls the server may answer with "session lost" when they were in flight at the crash. */
  private static final Set<String> MAY_BE_LOST = Set.of(SLEEP, ECHO, CRASH);

  /** The tools the load calls: echoes (two of them safe to retry), a slow one, and the crash. */
  public static final class Tools implements Scenario {
    @Override
    public void define(Script script) {
      script.tool(ECHO).answer(CrashUnderLoad::message);
      script.tool(READ_ONLY_ECHO).readOnly().answer(CrashUnderLoad::message);
      script.tool(IDEMPOTENT_ECHO).idempotent().answer(CrashUnderLoad::message);
      script.tool(SLEEP).delay(SLEEP_TIME, SLEPT);
      script.tool(CRASH).exit(3);
    }
  }

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
        before.add(() -> call(SLEEP, null, SLEPT));
      }
      for (int i = 0; i < ECHO_CALLS; i++) {
        String payload = "echo-" + i;
        before.add(() -> call(ECHO, payload, payload));
      }
      fireConcurrently(callers, before);

      crashSentAt = System.nanoTime();
      calls.add(call(CRASH, null, null));

      List<Supplier<Call>> after = new ArrayList<>();
      for (int i = 0; i < READ_ONLY_CALLS; i++) {
        String payload = "read-only-" + i;
        switch (i % 3) {
          case 0 -> after.add(() -> call(READ_ONLY_ECHO, payload, payload));
          case 1 -> after.add(() -> call(IDEMPOTENT_ECHO, payload, payload));
          default -> after.add(this::toolsList);
        }
      }
      fireConcurrently(callers, after);
    } finally {
      callers.shutdown();
    }
  }

  /** A tools/call of {@code tool}, with {@code message} as its argument when not null. */
  static CompletionStage<JsonRpcResponse> call(
      SessionSupervisor supervisor, String context, String server, String tool, String message) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("name", tool);
    ObjectNode arguments = params.putObject("arguments");
    if (message != null) {
      arguments.put("message", message);
    }
    return supervisor.request(context, server, McpMethods.TOOLS_CALL, params, null);
  }

  /** The text of {@code server}'s echo of {@code message}, awaited. */
  static String echo(SessionSupervisor supervisor, String context, String server, String message) {
    return text(await(call(supervisor, context, server, ECHO, message)));
  }

  /** The answer, within {@link #REQUEST_TIMEOUT}. */
  static JsonRpcResponse await(CompletionStage<JsonRpcResponse> answer) {
    try {
      return answer.toCompletableFuture().get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("no answer within " + REQUEST_TIMEOUT + ": " + e, e);
    }
  }

  /** The text of a successful tools/call answer. */
  static String text(JsonRpcResponse response) {
    if (response.isError()) {
      throw new AssertionError("error answer: " + response.error());
    }
    return response.result().path("content").path(0).path("text").asText();
  }

  static boolean isSessionLost(JsonRpcResponse response) {
    if (!response.isError() || response.error().code() != JsonRpcErrorCodes.UPSTREAM_SESSION_LOST) {
      return false;
    }
    JsonNode data = response.error().data();
    return data != null && data.path("retryable").asBoolean(false);
  }

  private static String message(java.util.Map<String, Object> arguments) {
    return String.valueOf(arguments.get("message"));
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

  private Call call(String tool, String message, String expected) {
    return track(tool, expected, call(supervisor, context, server, tool, message));
  }

  private Call toolsList() {
    return track(
        McpMethods.TOOLS_LIST,
        null,
        supervisor.request(context, server, McpMethods.TOOLS_LIST, null, null));
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
            isSessionLost(response), () -> call.tool() + " failed otherwise: " + response.error());
        assertTrue(
            MAY_BE_LOST.contains(call.tool()),
            () -> "read-only " + call.tool() + " failed: " + response.error());
        firstLostAt = Math.min(firstLostAt, call.answeredAt()[0]);
        lost++;
      } else if (call.tool().equals(McpMethods.TOOLS_LIST)) {
        assertEquals(
            5, response.result().path("tools").size(), () -> "tools/list answered " + response);
      } else {
        assertEquals(call.payload(), text(response), () -> "wrong answer to " + call.tool());
      }
    }
    JsonRpcResponse crash =
        calls.stream()
            .filter(c -> c.tool().equals(CRASH))
            .findFirst()
            .orElseThrow()
            .answer()
            .join();
    assertTrue(isSessionLost(crash), () -> "the crash call itself is lost, got " + crash);
    long detectedMillis = TimeUnit.NANOSECONDS.toMillis(firstLostAt - crashedAt);
    System.out.printf(
        "crash under load: %d of %d calls lost; first 'session lost' answer %d ms after the crash,"
            + " %d ms after the crash call was sent%n",
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
