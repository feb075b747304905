package dev.mcpsupervisor.app.bench;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one era of a {@link BenchPlan}: every session connects at once, then keeps {@code inFlight}
 * calls under way until it has made {@code callsPerSession}. Each call sends a payload unique to
 * the run, session and call, and {@link AnswerCheck} judges its answer.
 */
final class LoadRunner {

  private static final long NOT_MEASURED = -1;

  private final BenchPlan plan;
  private final Era era;
  private final HttpClient http;
  private final BenchRequests requests;
  private final String runId = UUID.randomUUID().toString().substring(0, 8);
  private final AtomicLong ok = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong wrong = new AtomicLong();
  private final AtomicReference<String> firstProblem = new AtomicReference<>("");
  private final long[] callMicros;
  private final long[] connectMicros;

  LoadRunner(BenchPlan plan, Era era, HttpClient http) {
    this.plan = plan;
    this.era = era;
    this.http = http;
    this.requests = new BenchRequests(plan, era);
    this.callMicros = new long[Math.toIntExact(plan.totalCalls())];
    this.connectMicros = new long[plan.sessions()];
    Arrays.fill(callMicros, NOT_MEASURED);
    Arrays.fill(connectMicros, NOT_MEASURED);
  }

  EraResult run() {
    ProcessCpu cpu =
        plan.gatewayPid().isPresent()
            ? new ProcessCpu(plan.gatewayPid().getAsLong(), plan.withChildren())
            : null;
    long cpuBefore = cpu == null ? 0 : cpu.micros();
    long start = System.nanoTime();
    List<CompletableFuture<Void>> sessions = new ArrayList<>();
    for (int session = 0; session < plan.sessions(); session++) {
      sessions.add(session(session));
    }
    CompletableFuture.allOf(sessions.toArray(CompletableFuture[]::new)).join();
    long elapsed = System.nanoTime() - start;
    OptionalLong cpuUsed =
        cpu == null ? OptionalLong.empty() : OptionalLong.of(cpu.micros() - cpuBefore);
    return new EraResult(
        era,
        ok.get(),
        failed.get(),
        wrong.get(),
        elapsed,
        LatencyStats.of(measured(callMicros)),
        LatencyStats.of(measured(connectMicros)),
        cpuUsed,
        firstProblem.get());
  }

  /** Connects, makes the session's calls, and (session era) ends the session. Never fails. */
  private CompletableFuture<Void> session(int session) {
    return connect(session)
        .thenCompose(
            sessionId -> {
              if (sessionId == null) {
                failed.addAndGet(plan.callsPerSession());
                return CompletableFuture.completedFuture(null);
              }
              AtomicInteger next = new AtomicInteger();
              CompletableFuture<?>[] lanes = new CompletableFuture<?>[plan.inFlight()];
              for (int lane = 0; lane < lanes.length; lane++) {
                lanes[lane] = lane(session, sessionId, next);
              }
              return CompletableFuture.allOf(lanes).thenCompose(done -> disconnect(sessionId));
            });
  }

  /**
   * The session id ("" when stateless), or null when the session could not be opened. A stateless
   * session's connect time is its first call's.
   */
  private CompletableFuture<String> connect(int session) {
    if (era == Era.STATELESS) {
      return CompletableFuture.completedFuture("");
    }
    long start = System.nanoTime();
    return send(requests.initialize())
        .thenCompose(
            response -> {
              String sessionId =
                  response.headers().firstValue(BenchRequests.SESSION_HEADER).orElse(null);
              if (response.statusCode() != 200 || sessionId == null) {
                problem("initialize answered " + response.statusCode() + ": " + response.body());
                return CompletableFuture.completedFuture(null);
              }
              return send(requests.initialized(sessionId))
                  .thenApply(
                      initialized -> {
                        if (initialized.statusCode() / 100 != 2) {
                          problem("notifications/initialized answered " + initialized.statusCode());
                          return null;
                        }
                        connectMicros[session] = micros(start);
                        return sessionId;
                      });
            })
        .exceptionally(
            error -> {
              problem("connect failed: " + error);
              return null;
            });
  }

  /** One of the session's K lanes: a call, and when it is answered, the next call not yet made. */
  private CompletableFuture<Void> lane(int session, String sessionId, AtomicInteger next) {
    int call = next.getAndIncrement();
    if (call >= plan.callsPerSession()) {
      return CompletableFuture.completedFuture(null);
    }
    return call(session, sessionId, call).thenCompose(done -> lane(session, sessionId, next));
  }

  private CompletableFuture<Void> call(int session, String sessionId, int call) {
    String payload = "bench-" + runId + "-s" + session + "-c" + call;
    long id = call + 1L;
    long start = System.nanoTime();
    return send(requests.toolCall(sessionId.isEmpty() ? null : sessionId, id, payload))
        .handle(
            (response, error) -> {
              long elapsed = micros(start);
              AnswerCheck.Verdict verdict =
                  error != null
                      ? new AnswerCheck.Verdict(Outcome.FAILED, error.toString())
                      : AnswerCheck.check(
                          response.statusCode(),
                          response.headers().firstValue("Content-Type").orElse(""),
                          response.body(),
                          id,
                          payload);
              record(session, call, elapsed, verdict);
              return null;
            });
  }

  private void record(int session, int call, long elapsedMicros, AnswerCheck.Verdict verdict) {
    switch (verdict.outcome()) {
      case OK -> {
        ok.incrementAndGet();
        callMicros[session * plan.callsPerSession() + call] = elapsedMicros;
        if (era == Era.STATELESS && call == 0) {
          connectMicros[session] = elapsedMicros;
        }
      }
      case FAILED -> failed.incrementAndGet();
      case WRONG -> wrong.incrementAndGet();
    }
    if (verdict.outcome() != Outcome.OK) {
      problem(verdict.outcome() + ": " + verdict.detail());
    }
  }

  private CompletableFuture<Void> disconnect(String sessionId) {
    if (sessionId.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return send(requests.delete(sessionId)).handle((response, error) -> null);
  }

  /** The answer, or a failed future: never throws, so a lane always goes on to its next call. */
  private CompletableFuture<HttpResponse<String>> send(HttpRequest request) {
    try {
      return http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
          .orTimeout(plan.timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (RuntimeException refused) {
      return CompletableFuture.failedFuture(refused);
    }
  }

  private void problem(String description) {
    firstProblem.compareAndSet("", description);
  }

  private static long micros(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000;
  }

  private static long[] measured(long[] micros) {
    return Arrays.stream(micros).filter(value -> value != NOT_MEASURED).toArray();
  }
}
