package dev.mcpsupervisor.app.chaos;

import dev.mcpsupervisor.app.bench.BenchPlan;
import dev.mcpsupervisor.app.bench.BenchRequests;
import dev.mcpsupervisor.app.bench.Era;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * N sessions (2025-06-18 era) calling without pause, one call in flight each, until a deadline:
 * every {@code readOnlyEvery}-th call goes to the read-only tool, the others to echo. Each call
 * carries a unique payload checked in its answer ({@link FailureKinds}). Reuses the bench's
 * requests.
 */
final class ChaosLoad {

  static final String ECHO = "echo";
  static final String READ_ONLY_ECHO = "read_only_echo";

  private final HttpClient http;
  private final BenchRequests echo;
  private final BenchRequests readOnlyEcho;
  private final Duration clientTimeout;
  private final int sessions;
  private final int readOnlyEvery;
  private final ConcurrentLinkedQueue<CallRecord> records = new ConcurrentLinkedQueue<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger connectFailures = new AtomicInteger();
  private long startNanos;
  private long stopNanos;

  ChaosLoad(HttpClient http, URI target, int sessions, int readOnlyEvery, Duration clientTimeout) {
    this.http = http;
    this.sessions = sessions;
    this.readOnlyEvery = readOnlyEvery;
    this.clientTimeout = clientTimeout;
    this.echo = new BenchRequests(plan(target, ECHO, clientTimeout), Era.SESSION);
    this.readOnlyEcho = new BenchRequests(plan(target, READ_ONLY_ECHO, clientTimeout), Era.SESSION);
  }

  private static BenchPlan plan(URI target, String tool, Duration timeout) {
    return new BenchPlan(
        List.of(target),
        List.of(Era.SESSION),
        1,
        1,
        1,
        tool,
        "message",
        timeout,
        OptionalLong.empty(),
        false);
  }

  /** Starts every session; calls go on for {@code duration}. Completes when all have stopped. */
  CompletableFuture<Void> start(Duration duration) {
    startNanos = System.nanoTime();
    stopNanos = startNanos + duration.toNanos();
    List<CompletableFuture<Void>> all = new ArrayList<>();
    for (int session = 0; session < sessions; session++) {
      all.add(session(session));
    }
    return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
  }

  /** Milliseconds since the load started. */
  long now() {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  int inFlight() {
    return inFlight.get();
  }

  int connectFailures() {
    return connectFailures.get();
  }

  List<CallRecord> records() {
    return List.copyOf(records);
  }

  private CompletableFuture<Void> session(int session) {
    return connect()
        .thenCompose(
            sessionId -> {
              if (sessionId == null) {
                connectFailures.incrementAndGet();
                return running() ? session(session) : CompletableFuture.completedFuture(null);
              }
              return calls(session, sessionId, 0)
                  .thenCompose(
                      lost ->
                          send(echo.delete(sessionId))
                              .handle((response, error) -> lost)
                              .thenCompose(
                                  sessionLost ->
                                      sessionLost && running()
                                          ? session(session)
                                          : CompletableFuture.completedFuture(null)));
            });
  }

  /** The session id, or null when the session could not be opened. */
  private CompletableFuture<String> connect() {
    return send(echo.initialize())
        .thenCompose(
            response -> {
              String sessionId =
                  response.headers().firstValue(BenchRequests.SESSION_HEADER).orElse(null);
              if (response.statusCode() != 200 || sessionId == null) {
                return CompletableFuture.completedFuture((String) null);
              }
              return send(echo.initialized(sessionId))
                  .thenApply(initialized -> initialized.statusCode() / 100 == 2 ? sessionId : null);
            })
        .exceptionally(error -> null);
  }

  /**
   * Calls one after the other until the load stops; completes with true when the gateway no longer
   * knows the session (HTTP 404), so a new one is opened.
   */
  private CompletableFuture<Boolean> calls(int session, String sessionId, int call) {
    if (!running()) {
      return CompletableFuture.completedFuture(false);
    }
    boolean readOnly = call % readOnlyEvery == readOnlyEvery - 1;
    BenchRequests requests = readOnly ? readOnlyEcho : echo;
    String payload = "chaos-s" + session + "-c" + call;
    long id = call + 1L;
    long start = now();
    inFlight.incrementAndGet();
    return send(requests.toolCall(sessionId, id, payload))
        .handle(
            (response, error) -> {
              inFlight.decrementAndGet();
              FailureKinds.Kind kind =
                  error != null
                      ? FailureKinds.ofException(error)
                      : FailureKinds.ofAnswer(
                          response.statusCode(),
                          response.headers().firstValue("Content-Type").orElse(""),
                          response.body(),
                          id,
                          payload);
              records.add(new CallRecord(start, now(), readOnly, kind.name(), kind.retryable()));
              return response != null && response.statusCode() == 404;
            })
        .thenCompose(
            lost ->
                lost
                    ? CompletableFuture.completedFuture(true)
                    : calls(session, sessionId, call + 1));
  }

  private boolean running() {
    return System.nanoTime() < stopNanos;
  }

  private CompletableFuture<HttpResponse<String>> send(HttpRequest request) {
    try {
      return http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
          .orTimeout(clientTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RuntimeException refused) {
      return CompletableFuture.failedFuture(refused);
    }
  }
}
