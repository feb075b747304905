package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A context's leased calls skip the router once it has routed one (they go straight to the key
 * actor of the lease, {@code LeaseDirectory}): hundreds of callers doing so while reconfigurations
 * retire that key actor under them, and while their own releases race their calls, lose no call and
 * get none answered wrong. A call made after a reconfiguration completed is served by the
 * configuration it put in force, never by the retired key's sessions.
 */
class LeasedCallsAcrossReloadTest {

  private static final int CALLERS = 300;
  private static final int RELOADS = 20;
  private static final Duration WITHIN = Duration.ofSeconds(60);

  @Test
  void leasedCallsRacingReloadsThatRetireTheirKeyAreAllAnsweredByTheConfigInForce()
      throws Exception {
    try (TestSupervisor test =
        TestSupervisor.startOnRealTime("mcp-supervisor.supervisor.drainTimeout = 5s", version(0))) {
      // each session answers with the version of the configuration it was opened by
      test.connector.answerCallsBySpec =
          (spec, request) ->
              JsonRpcResponse.success(
                  request.id(),
                  FakeConnector.text(
                      ((ServerSpec.Stdio) spec).args().get(0)
                          + ":"
                          + request.params().path("arguments").path("message").asText()));
      Callers callers = new Callers(test.supervisor, CALLERS, false);
      callers.start();
      for (int v = 1; v <= RELOADS; v++) {
        callers.awaitCalls(CALLERS);
        test.supervisor
            .reconfigure(TestSupervisor.config(version(v)))
            .toCompletableFuture()
            .get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
        callers.applied.set(v);
      }
      callers.awaitCalls(CALLERS);
      callers.stopAndAwait();
      callers.assertAllRight();
    }
  }

  @Test
  void leasedCallsRacingTheirOwnReleasesAreAllAnswered() throws Exception {
    try (TestSupervisor test = TestSupervisor.startOnRealTime(version(0))) {
      test.connector.answerCallsBySpec =
          (spec, request) ->
              JsonRpcResponse.success(
                  request.id(),
                  FakeConnector.text(
                      "0:" + request.params().path("arguments").path("message").asText()));
      // a call straight to the key actor whose release, on another thread, got there first goes
      // through the router, which leases again
      Callers callers = new Callers(test.supervisor, CALLERS, true);
      callers.start();
      callers.awaitCalls(10 * CALLERS);
      callers.stopAndAwait();
      callers.assertAllRight();
    }
  }

  /** The server "s", its spec naming {@code version}: a new version retires its key. */
  private static ServerConfig version(int version) {
    return ServerConfig.builder(
            "s", new ServerSpec.Stdio("fake-s", List.of(String.valueOf(version)), Map.of(), null))
        .isolation(Isolation.SHARED)
        .maxSessions(4)
        .maxInflightPerSession(1000)
        .requestTimeout(WITHIN)
        .idleTimeout(TestSupervisor.IDLE_TIMEOUT)
        .build();
  }

  /** Contexts each calling in a loop; what they got. */
  private static final class Callers {
    private final SessionSupervisor supervisor;
    private final int count;
    private final boolean releaseRacing;

    /** The version of the last reconfiguration that completed. */
    final AtomicInteger applied = new AtomicInteger();

    private final AtomicBoolean stop = new AtomicBoolean();
    private final Semaphore answered = new Semaphore(0);
    private final AtomicLong calls = new AtomicLong();
    private final Queue<String> wrong = new ConcurrentLinkedQueue<>();
    private final CompletableFuture<?>[] loops;

    /**
     * @param releaseRacing each call races a release of its context's lease on another thread
     */
    Callers(SessionSupervisor supervisor, int count, boolean releaseRacing) {
      this.supervisor = supervisor;
      this.count = count;
      this.releaseRacing = releaseRacing;
      this.loops = new CompletableFuture<?>[count];
    }

    void start() {
      for (int c = 0; c < count; c++) {
        CompletableFuture<Object> loop = new CompletableFuture<>();
        loops[c] = loop;
        call("c" + c, 0, loop);
      }
    }

    /** One call of the context, then its next until stopped. */
    private void call(String context, int i, CompletableFuture<Object> done) {
      if (stop.get()) {
        done.complete(null);
        return;
      }
      String message = context + "#" + i;
      int appliedBefore = applied.get();
      ObjectNode params = JsonRpcCodec.emptyObject();
      params.put("name", "echo");
      params.putObject("arguments").put("message", message);
      CompletableFuture<JsonRpcResponse> call =
          supervisor.request(context, "s", "tools/call", params, null).toCompletableFuture();
      if (releaseRacing) {
        // its context's directory entry goes, and with the last lease the key actor
        CompletableFuture.runAsync(() -> supervisor.release(context, "s"));
      }
      call.whenComplete(
          (response, failure) -> {
            check(message, appliedBefore, response, failure);
            calls.incrementAndGet();
            answered.release();
            call(context, i + 1, done);
          });
    }

    private void check(
        String message, int appliedBefore, JsonRpcResponse response, Throwable failure) {
      if (failure != null || response.error() != null) {
        wrong.add(message + " failed: " + (failure != null ? failure : response.error()));
        return;
      }
      String text = response.result().path("content").path(0).path("text").asText();
      int colon = text.indexOf(':');
      int version = colon < 0 ? -1 : Integer.parseInt(text.substring(0, colon));
      if (!text.substring(colon + 1).equals(message) || version < appliedBefore) {
        wrong.add(message + " made under version " + appliedBefore + " answered " + text);
      }
    }

    /** Waits until {@code count} more calls are answered. */
    void awaitCalls(int count) throws InterruptedException {
      answered.drainPermits();
      assertTrue(
          answered.tryAcquire(count, WITHIN.toMillis(), TimeUnit.MILLISECONDS),
          "not all calls were answered within " + WITHIN + ": " + calls.get() + " so far");
    }

    void stopAndAwait() throws Exception {
      stop.set(true);
      CompletableFuture.allOf(loops).get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
    }

    void assertAllRight() {
      System.out.printf("%d calls by %d callers, %d wrong%n", calls.get(), count, wrong.size());
      assertEquals(List.of(), wrong.stream().limit(20).toList(), wrong.size() + " wrong");
    }
  }
}
