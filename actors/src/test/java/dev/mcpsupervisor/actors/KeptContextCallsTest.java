package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.actors.call.CallOptions;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.actors.delivery.CallerKind;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The contexts their calls keep ({@link CallerKind#STATELESS_IN_CONTEXT}, a 2026-07-28 caller's
 * identity context) against an {@code isolation: context} server (the fixture over Streamable HTTP,
 * whose {@code count} tool counts per upstream session): the router keeps each while its calls are
 * in flight and for {@code gateway.sessionIdleTimeout} after the last one, then releases it in
 * order with its calls, so a call never meets a half-released session.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeptContextCallsTest {

  private static final String SERVER = "counter";
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final CallOptions KEPT =
      CallOptions.defaults().withCaller(CallerKind.STATELESS_IN_CONTEXT);

  private final FixtureProcess fixture = FixtureProcess.startHttp();
  private SessionSupervisor supervisor;

  /** Each test's own: a new supervisor, new upstream sessions. */
  @AfterEach
  void stopSupervisor() {
    if (supervisor != null) {
      supervisor.close();
    }
  }

  @AfterAll
  void stopFixture() {
    fixture.close();
    ChildProcesses.assertNoneAlive();
  }

  private SupervisorConfig config(Duration idleTimeout) {
    ServerConfig counter =
        RealFixture.contextIsolated(
            ServerConfig.builder(
                    SERVER,
                    new ServerSpec.StreamableHttp(
                        URI.create(fixture.url()), Map.of(), UpstreamProtocol.SESSION))
                .requestTimeout(RealFixture.REQUEST_TIMEOUT)
                .build());
    return new SupervisorConfig(
        Map.of(SERVER, counter.toBuilder().maxSessions(64).build()),
        GatewayConfig.builder().sessionIdleTimeout(idleTimeout).build());
  }

  private void start(Duration idleTimeout) {
    supervisor = SessionSupervisor.start(config(idleTimeout));
  }

  private CompletableFuture<JsonRpcResponse> call(String context, String tool, Object ms) {
    return supervisor
        .call(
            context,
            SERVER,
            McpMethods.TOOLS_CALL,
            RealFixture.toolCall(tool, ms == null ? null : "ms", ms),
            KEPT)
        .toCompletableFuture()
        .thenApply(outcome -> ((CallOutcome.Complete) outcome).response());
  }

  private int count(String context) {
    return Integer.parseInt(
        RealFixture.text(RealFixture.await(call(context, FixtureTools.COUNT, null), WAIT)));
  }

  private List<String> leased() throws Exception {
    SupervisorSnapshot snapshot =
        supervisor.snapshot().toCompletableFuture().get(10, TimeUnit.SECONDS);
    return snapshot.keys().stream()
        .flatMap(key -> key.leases().keySet().stream())
        .sorted()
        .toList();
  }

  /** Bounded at {@link #WAIT}: the release comes with the idle timer. */
  private void awaitNoLease(String context) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (leased().contains(context)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(context + " still leased: " + leased());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  @Test
  void aContextsCallsKeepItsSessionAndAnotherContextsAreApart() throws Exception {
    start(Duration.ofHours(1));
    assertEquals(List.of(1, 2, 3), List.of(count("a"), count("a"), count("a")));
    assertEquals(1, count("b"), "another caller's session is another");
    assertEquals(4, count("a"));
    assertEquals(List.of("a", "b"), leased(), "held between calls");
  }

  @Test
  void anIdleContextIsReleasedAfterTheTimeoutInForceAndStartsAfresh() throws Exception {
    start(Duration.ofHours(1));
    assertEquals(1, count("sleeper"));
    // a reload shortens the idle time: the next call's end reads it
    supervisor
        .reconfigure(config(Duration.ofMillis(200)))
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
    assertEquals(2, count("sleeper"));
    awaitNoLease("sleeper");
    assertEquals(1, count("sleeper"), "a new session after the release");
  }

  @Test
  void aCallInFlightHoldsItsContextPastTheIdleTimeout() throws Exception {
    start(Duration.ofMillis(100));
    assertEquals(1, count("slow"));
    // the first call's end started the idle time: this call stops it until its own end
    JsonRpcResponse slept = RealFixture.await(call("slow", FixtureTools.SLEEP, 1_500), WAIT);
    assertEquals("slept 1500", RealFixture.text(slept), "not lost to a release under it");
  }

  @Test
  void callsRacingTheirContextsReleasesNeverMeetAHalfReleasedSession() throws Exception {
    start(Duration.ofMillis(1));
    // released between almost every two calls: each call is on a whole session, the old or a new
    int previous = 0;
    for (int i = 0; i < 60; i++) {
      int counted = count("racer");
      assertTrue(counted == 1 || counted == previous + 1, previous + " then " + counted);
      previous = counted;
    }
    List<CompletableFuture<JsonRpcResponse>> racing = new ArrayList<>();
    for (int chain = 0; chain < 8; chain++) {
      CompletableFuture<JsonRpcResponse> next = call("racer", FixtureTools.COUNT, null);
      for (int i = 0; i < 15; i++) {
        next =
            next.thenCompose(
                answer -> {
                  assertFalse(answer.isError(), answer.toString());
                  return call("racer", FixtureTools.COUNT, null);
                });
      }
      racing.add(next);
    }
    for (CompletableFuture<JsonRpcResponse> chain : racing) {
      JsonRpcResponse last = chain.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      assertFalse(last.isError(), last.toString());
    }
    awaitNoLease("racer");
  }

  @Test
  void releasingTheKeptContextsEndsEveryOneAndTheirNextCallsStartAfresh() throws Exception {
    start(Duration.ofHours(1));
    count("a");
    assertEquals(2, count("a"));
    count("b");
    supervisor.acquire("explicit", SERVER).toCompletableFuture().get(10, TimeUnit.SECONDS);
    supervisor.releaseKeptContexts().toCompletableFuture().get(10, TimeUnit.SECONDS);
    // the releases reached the key actor before this snapshot
    assertEquals(List.of("explicit"), leased(), "a lease its calls do not keep stays");
    assertEquals(1, count("a"));
    assertEquals(1, count("b"));
  }

  @Test
  void aLeaseAKeptContextAcquiredEndsWithTheContext() throws Exception {
    start(Duration.ofMillis(200));
    String first =
        supervisor
            .acquire("acquirer", SERVER, CallerKind.STATELESS_IN_CONTEXT)
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS)
            .path("serverInfo")
            .path("name")
            .asText();
    assertEquals(FixtureTools.SERVER_NAME, first);
    awaitNoLease("acquirer");
    assertEquals(1, count("acquirer"), "a new session");
  }
}
