package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.callTool;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hundreds of downstream sessions at once on one shared upstream: each gets its own answers,
 * nothing leaks.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConcurrentSessionsTest {

  private static final int SESSIONS = 200;

  @Test
  void twoHundredSessionsEachGetTheirOwnAnswers() throws Exception {
    for (String path : List.of("/servers/fixture/mcp", "/mcp")) {
      try (TestGateway gateway = TestGateway.start(TestGateway.stdioFixture("fixture"))) {
        String tool = path.equals("/mcp") ? "fixture__echo" : "echo";
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<String>> sessions = new ArrayList<>();
        for (int i = 0; i < SESSIONS; i++) {
          String payload = "payload-" + i + "-" + path;
          sessions.add(
              CompletableFuture.supplyAsync(() -> await(start))
                  .thenCompose(ready -> session(gateway, path, tool, payload)));
        }
        start.countDown();
        Set<String> ids = new HashSet<>();
        for (CompletableFuture<String> session : sessions) {
          ids.add(session.get(90, TimeUnit.SECONDS));
        }
        assertEquals(SESSIONS, ids.size(), "every session got its own id");
        SupervisorSnapshot snapshot = gateway.snapshot();
        int upstreamSessions =
            snapshot.keys().stream().mapToInt(key -> key.sessions().size()).sum();
        assertTrue(
            upstreamSessions <= 4, "sessions share the pool (maxSessions 4): " + upstreamSessions);
        int leases = snapshot.keys().stream().mapToInt(key -> key.leases().size()).sum();
        assertEquals(0, leases, "every DELETE released its lease");
      }
    }
  }

  /** initialize, initialized, echo a unique payload three times, DELETE; answers the session id. */
  private static CompletableFuture<String> session(
      TestGateway gateway, String path, String tool, String payload) {
    return gateway
        .postAsync(path, null, TestGateway.initializeBody(ProtocolVersions.LATEST, "{}"))
        .thenCompose(
            initialized -> {
              assertEquals(200, initialized.statusCode(), initialized.body());
              String id = initialized.headers().firstValue("Mcp-Session-Id").orElseThrow();
              return gateway
                  .postAsync(
                      path, id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
                  .thenCompose(notUsed -> echo(gateway, path, id, tool, payload, 3))
                  .thenCompose(
                      notUsed ->
                          gateway.http.sendAsync(
                              gateway.request(path).header("Mcp-Session-Id", id).DELETE().build(),
                              HttpResponse.BodyHandlers.ofString()))
                  .thenApply(
                      deleted -> {
                        assertEquals(200, deleted.statusCode());
                        return id;
                      });
            });
  }

  private static CompletableFuture<Void> echo(
      TestGateway gateway, String path, String id, String tool, String payload, int times) {
    if (times == 0) {
      return CompletableFuture.completedFuture(null);
    }
    String message = payload + "-" + times;
    return gateway
        .postAsync(
            path, id, callTool("\"" + message + "\"", tool, "{\"message\":\"" + message + "\"}"))
        .thenCompose(
            response -> {
              assertEquals(200, response.statusCode(), response.body());
              assertEquals(message, TestGateway.answer(response).path("id").asText());
              assertEquals(
                  message, TestGateway.text(TestGateway.answer(response)), "its own answer");
              return echo(gateway, path, id, tool, payload, times - 1);
            });
  }

  private static boolean await(CountDownLatch latch) {
    try {
      return latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
