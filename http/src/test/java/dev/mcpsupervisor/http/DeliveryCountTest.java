package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

  private final TestGateway gateway =
      TestGateway.start(
          "pekko.actor.typed.default-mailbox.mailbox-type = \""
              + CountingMailbox.class.getName()
              + "\"\nmcp-supervisor.supervisor-pekko.pekko.actor.typed.default-mailbox.mailbox-type = \""
              + CountingMailbox.class.getName()
              // no ping and no idle sweep falls in a window, and a call slowed by the machine's
              // load
              // does not become a primed SSE stream: what is counted is a warm call answered at
              // once
              + "\"\nmcp-supervisor.supervisor.pingInterval = 1h"
              + "\nmcp-supervisor.http.sseResume.streamAfter = 1h",
          TestGateway.gateway(List.of(), List.of(), 1024 * 1024, Duration.ofHours(1)),
          TestGateway.stdioFixture("fixture"));

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

  private static void assertCounted(String era, Supplier<HttpResponse<String>> call, int bound) {
    for (int warm = 0; warm < 3; warm++) {
      assertEquals(200, call.get().statusCode());
    }
    CountingMailbox.start();
    for (int i = 0; i < CALLS; i++) {
      HttpResponse<String> answered = call.get();
      assertEquals(200, answered.statusCode(), answered.body());
      assertTrue(answered.body().contains("hi"), answered.body());
    }
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
}
