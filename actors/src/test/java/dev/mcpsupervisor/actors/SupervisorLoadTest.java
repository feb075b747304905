package dev.mcpsupervisor.actors;

import static dev.mcpsupervisor.actors.TestSupervisor.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.SessionSnapshot;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Many contexts calling at once: every call answered, each with its own answer; pooled sessions
 * stay bounded.
 */
class SupervisorLoadTest {

  private static final int CONTEXTS = 100;
  private static final int CALLS = 200;

  @Test
  void manyContextsCallingConcurrentlyEachGetTheirOwnAnswers() throws Exception {
    try (TestSupervisor test =
        TestSupervisor.startOnRealTime(TestSupervisor.server("alpha", Isolation.SHARED, 4, 32))) {
      // the fake upstream echoes the caller's marker back, so a crossed answer is seen
      test.connector.answerCalls =
          request ->
              JsonRpcResponse.success(
                  request.id(),
                  FakeConnector.text(request.params().path("arguments").path("marker").asText()));
      // every context is an agent run: it calls, waits for the answer, calls again (100 runs at
      // once)
      long started = System.nanoTime();
      List<CompletableFuture<Integer>> runs = new ArrayList<>();
      for (int c = 0; c < CONTEXTS; c++) {
        runs.add(run(test.supervisor, "ctx-" + c, 0, 0));
      }
      for (CompletableFuture<Integer> run : runs) {
        assertEquals(CALLS, run.get(60, TimeUnit.SECONDS), "every call got its own answer");
      }
      long elapsedNanos = System.nanoTime() - started;
      System.out.printf(
          "%d calls from %d concurrent contexts in %d ms (%.0f calls/s)%n",
          CONTEXTS * CALLS,
          CONTEXTS,
          elapsedNanos / 1_000_000,
          CONTEXTS * CALLS / (elapsedNanos / 1e9));

      List<SessionSnapshot> sessions = test.onlyKey().sessions();
      assertTrue(sessions.size() >= 1 && sessions.size() <= 4, "at most maxSessions: " + sessions);
      assertEquals(sessions.size(), test.connector.connects.get());
      sessions.forEach(session -> assertEquals(0, session.inFlight()));
      assertEquals(CONTEXTS * CALLS, test.observer.completed.get("ok").get());
    }
  }

  @Test
  void clientNotificationsReachTheContextsSession() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      await(test.supervisor.acquire("run", "alpha"));
      FakeConnector.FakeConnection connection = test.connector.nextConnection();
      test.supervisor.notify("run", "alpha", McpMethods.NOTIFICATION_ROOTS_LIST_CHANGED, null);
      JsonRpcNotification forwarded = connection.nextNotification();
      assertEquals(McpMethods.NOTIFICATION_ROOTS_LIST_CHANGED, forwarded.method());
      test.supervisor.notify("stranger", "alpha", McpMethods.NOTIFICATION_ROOTS_LIST_CHANGED, null);
      test.onlySession();
      assertTrue(connection.nothingSent(), "a context without a lease has no session to notify");
    }
  }

  /**
   * Calls one after another; completes with the number of calls answered with the caller's own
   * marker.
   */
  private static CompletableFuture<Integer> run(
      SessionSupervisor supervisor, String context, int call, int correct) {
    if (call == CALLS) {
      return CompletableFuture.completedFuture(correct);
    }
    String marker = context + "/" + call;
    return supervisor
        .request(context, "alpha", McpMethods.TOOLS_CALL, marked(marker), null)
        .toCompletableFuture()
        .thenCompose(
            response -> {
              boolean own =
                  response.error() == null
                      && marker.equals(
                          response.result().path("content").get(0).path("text").asText());
              return run(supervisor, context, call + 1, correct + (own ? 1 : 0));
            });
  }

  private static ObjectNode marked(String marker) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("name", "echo");
    params.putObject("arguments").put("marker", marker);
    return params;
  }
}
