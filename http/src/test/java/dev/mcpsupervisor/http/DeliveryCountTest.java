package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.protocol.config.ServerConfig;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The actor deliveries of one warm {@code tools/call} in each era, counted by a mailbox that notes
 * every message put in an actor of the supervisor's tree ({@link CountingMailbox}): the numbers of
 * docs/architecture.md's hop table, and its bounds. A POST stream's priming timer, which fired
 * after every answer before issue 35, is StreamResumptionTest's: here it never falls in the window.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeliveryCountTest {

  /** Calls counted in one window: a delivery that trails a call's answer falls in the window. */
  private static final int CALLS = 5;

  static final int SESSION_ERA_BOUND = 5;
  static final int STATELESS_BOUND = 5;

  private final TestGateway gateway = countingGateway(TestGateway.stdioFixture("fixture"));

  /** A gateway whose actors' mailboxes count, in front of {@code servers}. */
  static TestGateway countingGateway(ServerConfig... servers) {
    return TestGateway.start(
        "pekko.actor.typed.default-mailbox.mailbox-type = \""
            + CountingMailbox.class.getName()
            + "\"\nmcp-supervisor.supervisor-pekko.pekko.actor.typed.default-mailbox.mailbox-type = \""
            + CountingMailbox.class.getName()
            // no ping and no idle sweep falls in a window, and a call slowed by the machine's
            // load
            // does not become a primed SSE stream: what is counted is a warm call answered at
            // once
            + "\"\nmcp-supervisor.supervisor.pingInterval = 1h"
            // nor a refresh of the list cache the Mcp-Param check reads (its 10 s passed in the
            // 13th of 20 repetitions in one JVM: a tools/list round trip in the window)
            + "\nmcp-supervisor.supervisor.listCacheTtl = 1h"
            + "\nmcp-supervisor.http.sseResume.streamAfter = 1h"
            // a caller named by this header has an identity context
            + "\nmcp-supervisor.http.agentIdHeader = "
            + AGENT_HEADER,
        TestGateway.gateway(List.of(), List.of(), 1024 * 1024, Duration.ofHours(1)),
        servers);
  }

  /** Names a caller (an identity context) where the gateway has no tokens. */
  static final String AGENT_HEADER = "X-Agent-ID";

  @AfterAll
  void stop() {
    gateway.close();
  }

  @Test
  void aSessionEraCall() {
    String session = gateway.initialize("/mcp");
    Supplier<HttpResponse<String>> call =
        () ->
            gateway.post(
                "/mcp", session, TestGateway.callTool(1, "fixture__echo", "{\"message\":\"hi\"}"));
    assertCounted("2025 (session)", call, SESSION_ERA_BOUND);
  }

  @Test
  void aStatelessCall() {
    StatelessClient client = new StatelessClient(gateway, "{}");
    assertCounted(
        "2026-07-28",
        () -> client.callTool("/mcp", 1, "fixture__echo", "{\"message\":\"hi\"}"),
        STATELESS_BOUND);
  }

  static void assertCounted(String era, Supplier<HttpResponse<String>> call, int bound) {
    assertCounted(era, call, bound, null);
  }

  /**
   * @param trailing the class of a delivery that trails each call's answer (null: none): the window
   *     waits for the warm calls' before it opens and for its own calls' before it closes
   */
  static void assertCounted(
      String era, Supplier<HttpResponse<String>> call, int bound, String trailing) {
    CountingMailbox.start();
    for (int warm = 0; warm < 3; warm++) {
      assertEquals(200, call.get().statusCode());
    }
    awaitTrailing(trailing, 3);
    CountingMailbox.start();
    for (int i = 0; i < CALLS; i++) {
      HttpResponse<String> answered = call.get();
      assertEquals(200, answered.statusCode(), answered.body());
      assertTrue(answered.body().contains("hi"), answered.body());
    }
    awaitTrailing(trailing, CALLS);
    List<String> noted = CountingMailbox.stop();
    System.out.printf(
        "%s: %d deliveries in %d warm calls; the first: %s%n",
        era, noted.size(), CALLS, noted.subList(0, Math.min(noted.size(), 2 * bound)));
    assertTrue(
        noted.size() <= bound * CALLS,
        era
            + ": "
            + noted.size()
            + " deliveries in "
            + CALLS
            + " calls, bound "
            + bound
            + ": "
            + noted);
  }

  private static void awaitTrailing(String trailing, int count) {
    if (trailing == null) {
      return;
    }
    try {
      CountingMailbox.awaitNoted(trailing, count, Duration.ofSeconds(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
