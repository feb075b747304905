package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.http.routes.SessionExchanges;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.SessionLimits;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Thousands of initializes in front of an {@code isolation: context} server over stdio (every
 * upstream session a process): the gateway stops creating downstream sessions at {@code
 * maxDownstreamSessions} (503 with Retry-After), and the server never has more than {@code
 * maxSessions} processes.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SessionLimitsTest {

  private static final int INITIALIZES = 5_000;
  private static final int MAX_DOWNSTREAM_SESSIONS = 100;
  private static final int MAX_SESSIONS = 2;

  /** Requests in flight at once from the test's client. */
  private static final int CONCURRENCY = 32;

  @Test
  void initializesPastTheLimitGet503AndChildProcessesStayAtMaxSessions() throws Exception {
    try (TestGateway gateway = TestGateway.start(limited(), contextIsolatedFixture())) {
      long[] warm = new long[2]; // RSS and heap after GC once the first 1,000 have been sent
      ConcurrentMap<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
      AtomicInteger withoutRetryAfter = new AtomicInteger();
      AtomicLong mostChildren = new AtomicLong();
      Semaphore inFlight = new Semaphore(CONCURRENCY);
      CountDownLatch done = new CountDownLatch(INITIALIZES);
      String body = TestGateway.initializeBody(ProtocolVersions.V2025_06_18, "{}");
      for (int i = 0; i < INITIALIZES; i++) {
        inFlight.acquire();
        if (i == 1_000) {
          warm[0] = rssKib();
          warm[1] = heapAfterGcKib();
        }
        int index = i;
        gateway
            .postAsync("/mcp", null, body)
            .whenComplete(
                (response, failure) -> {
                  int status = failure != null ? -1 : response.statusCode();
                  statuses.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
                  if (status == 503 && !retryAfter(response)) {
                    withoutRetryAfter.incrementAndGet();
                  }
                  if (index % 50 == 0) {
                    mostChildren.accumulateAndGet(children(), Math::max);
                  }
                  inFlight.release();
                  done.countDown();
                });
      }
      assertTrue(done.await(240, TimeUnit.SECONDS));
      mostChildren.accumulateAndGet(children(), Math::max);
      System.out.printf(
          "SessionLimitsTest: %d initializes -> %s; most child processes %d;"
              + " from the 1,000th to the end: RSS %d -> %d KiB, heap after GC %d -> %d KiB%n",
          INITIALIZES, statuses, mostChildren.get(), warm[0], rssKib(), warm[1], heapAfterGcKib());

      assertEquals(MAX_DOWNSTREAM_SESSIONS, count(statuses, 200), statuses::toString);
      assertEquals(INITIALIZES - MAX_DOWNSTREAM_SESSIONS, count(statuses, 503), statuses::toString);
      assertEquals(0, withoutRetryAfter.get());
      assertTrue(
          mostChildren.get() <= MAX_SESSIONS,
          () -> mostChildren.get() + " child processes, maxSessions is " + MAX_SESSIONS);
      assertTrue(
          gateway.snapshot().keys().stream().allMatch(k -> k.sessions().size() <= MAX_SESSIONS));
    }
  }

  private static GatewayConfig limited() {
    GatewayConfig base = TestGateway.gateway(List.of(), List.of(), 1024 * 1024);
    return base.toBuilder()
        .sessionIdleTimeout(Duration.ofMinutes(30))
        .sessionLimits(
            new SessionLimits(MAX_DOWNSTREAM_SESSIONS, MAX_DOWNSTREAM_SESSIONS, 64, 64, 100))
        .build();
  }

  private static ServerConfig contextIsolatedFixture() {
    ServerConfig fixture = TestGateway.stdioFixture("local");
    return ServerConfig.builder("local", fixture.spec())
        .isolation(Isolation.CONTEXT)
        .maxSessions(MAX_SESSIONS)
        .maxInflightPerSession(fixture.maxInflightPerSession())
        .requestTimeout(fixture.requestTimeout())
        .idleTimeout(fixture.idleTimeout())
        .build();
  }

  private static boolean retryAfter(HttpResponse<String> response) {
    return response
        .headers()
        .firstValue("Retry-After")
        .equals(java.util.Optional.of(Long.toString(SessionExchanges.RETRY_AFTER_SECONDS)));
  }

  private static int count(ConcurrentMap<Integer, AtomicInteger> statuses, int status) {
    AtomicInteger count = statuses.get(status);
    return count == null ? 0 : count.get();
  }

  /** This JVM's live child processes (the fixture servers it spawned). */
  private static long children() {
    return ProcessHandle.current().children().filter(ProcessHandle::isAlive).count();
  }

  /** Heap in use after a full collection, for the report. */
  private static long heapAfterGcKib() {
    System.gc();
    return java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed()
        / 1024;
  }

  /** Resident set size of this JVM (Linux), for the report; 0 elsewhere. */
  private static long rssKib() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (Exception notLinux) {
      // the figure is only reported
    }
    return 0;
  }
}
