package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.app.demo.DemoServer;
import io.modelcontextprotocol.client.McpSyncClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The jar with its warm-up on: it warms up after it prints the listening line, until {@code
 * /readyz} says ready, and a client sees nothing of it (no session, no demo server process, no call
 * in the metrics). A warm-up that cannot finish in its max duration still ends in a ready gateway.
 */
@Timeout(180)
class WarmupIT {

  /** Whole sessions in both phases and eras (300 per era in each: 6 of 50 calls, 100 of 3). */
  private static final int WARMUP_CALLS = 1_200;

  private static final Duration READY_BOUND = Duration.ofSeconds(120);

  /**
   * The warm-up's own bound, raised from its 30 s default within {@link #READY_BOUND}: the first
   * case is about what a finished warm-up leaves, and at load average 17 on 2 cores its 1,200 calls
   * (and the demo server's JVM) took longer than 30 s, so it was cut short (the second case covers
   * that).
   */
  private static final String WARMUP_BOUND =
      "-Dmcp-supervisor.application.warmup.maxDuration=" + (READY_BOUND.toSeconds() - 10) + "s";

  @Test
  void theWarmUpRunsOnceTheGatewayListensAndLeavesNothingAClientCanSee() throws Exception {
    try (JarProcess jar =
        JarProcess.startWithJvmOptions(
            List.of(JarProcess.warmupCalls(WARMUP_CALLS), WARMUP_BOUND), "--port", "0")) {
      String url = jar.awaitListening();
      awaitReady(url);
      assertTrue(
          jar.stderrText().contains(" rounds of " + WARMUP_CALLS + ")"),
          "the warm-up's summary before ready; stderr:\n" + jar.stderrText());
      // none of the warm-up's sessions, demo server processes or calls
      assertEquals(
          List.of(),
          Descendants.running(jar.process().toHandle(), DemoServer.class.getName()),
          "demo server processes before any client");
      JsonNode admin = McpHttpSession.JSON.readTree(get(url, "/admin/sessions"));
      assertEquals(0, admin.path("downstreamSessions").size(), admin.toString());
      admin
          .path("serverKeys")
          .forEach(key -> assertEquals(0, key.path("sessions").size(), admin.toString()));
      String metrics = get(url, "/metrics");
      assertTrue(
          metrics.lines().noneMatch(line -> line.startsWith("mcp_supervisor_upstream_request")),
          "no call counted before any client:\n" + metrics);

      try (McpSyncClient client = GatewayClients.connect(url, "/servers/demo/mcp")) {
        assertEquals("warm", GatewayClients.callText(client, "echo", Map.of("message", "warm")));
        assertEquals(
            1,
            McpHttpSession.JSON
                .readTree(get(url, "/admin/sessions"))
                .path("downstreamSessions")
                .size(),
            "only this client's session");
      }
      assertEquals(
          1,
          Descendants.running(jar.process().toHandle(), DemoServer.class.getName()).size(),
          "only the real gateway's demo server");
    }
  }

  @Test
  void aWarmUpCutShortByItsMaxDurationStillLetsTheGatewayStartAndServe() throws Exception {
    try (JarProcess jar =
        JarProcess.startWithJvmOptions(
            List.of(
                JarProcess.warmupCalls(1_000_000),
                "-Dmcp-supervisor.application.warmup.maxDuration=2s"),
            "--port",
            "0")) {
      String url = jar.awaitListening();
      awaitReady(url);
      assertTrue(
          jar.stderrText().contains("warm-up cut short after 2000 ms"),
          "a warning; stderr:\n" + jar.stderrText());
      assertEquals(
          List.of(),
          Descendants.running(jar.process().toHandle(), DemoServer.class.getName()),
          "the warm-up's demo server is gone");
      try (McpSyncClient client = GatewayClients.connect(url, "/servers/demo/mcp")) {
        assertEquals("5", GatewayClients.callText(client, "add", Map.of("a", 2, "b", 3)));
      }
    }
  }

  /** Polls {@code /readyz} (503 while warming) until 200, bounded. */
  private static void awaitReady(String mcpUrl) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + READY_BOUND.toNanos();
    while (probe(mcpUrl, "/readyz").statusCode() != 200) {
      assertTrue(System.nanoTime() < deadline, "not ready within " + READY_BOUND);
      Thread.sleep(50); // polling a probe, as a load balancer does
    }
  }

  private static String get(String mcpUrl, String path) throws IOException, InterruptedException {
    HttpResponse<String> response = probe(mcpUrl, path);
    assertEquals(200, response.statusCode(), path + ": " + response.body());
    return response.body();
  }

  private static HttpResponse<String> probe(String mcpUrl, String path)
      throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(mcpUrl).resolve(path))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
