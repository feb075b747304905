package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.callTool;
import static dev.mcpsupervisor.http.TestGateway.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Probes, Prometheus metrics, the admin page (without secrets), and a graceful stop. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OperationsTest {

  private static final String SECRET = "hunter2-do-not-print";

  @Test
  void metricsAdminAndProbesDescribeTheGatewayWithoutSecrets() {
    try (TestGateway gateway = TestGateway.start(fixtureWithSecret("fixture"))) {
      String session = gateway.initialize("/servers/fixture/mcp");
      gateway.post("/servers/fixture/mcp", session, callTool(2, "echo", "{\"message\":\"m\"}"));
      gateway.post("/servers/fixture/mcp", session, "{");
      gateway.post("/servers/fixture/mcp", session, TestGateway.request(3, "no/such/method", "{}"));

      HttpResponse<String> metrics = gateway.get("/metrics");
      assertEquals(200, metrics.statusCode());
      assertTrue(metrics.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
      String text = metrics.body();
      for (String series :
          List.of(
              "mcp_supervisor_upstream_sessions_created_total{server=\"fixture\"} 1",
              "mcp_supervisor_upstream_sessions{server=\"fixture\",state=\"ready\"} 1",
              "mcp_supervisor_upstream_leases{server=\"fixture\"} 1",
              "mcp_supervisor_upstream_inflight_requests{server=\"fixture\"} 0",
              "mcp_supervisor_upstream_stashed_requests{server=\"fixture\"} 0",
              "mcp_supervisor_upstream_request_duration_seconds_bucket{method=\"tools/call\",server=\"fixture\",le=\"+Inf\"} 1",
              "mcp_supervisor_upstream_request_duration_seconds_count{method=\"tools/call\",server=\"fixture\"} 1",
              "mcp_supervisor_downstream_sessions 1",
              "mcp_supervisor_downstream_rejections_total{reason=\"parse_error\"} 1",
              "# TYPE mcp_supervisor_upstream_sessions_reused_total counter",
              "# TYPE mcp_supervisor_upstream_sessions_restarted_total counter",
              "# TYPE mcp_supervisor_upstream_sessions_evicted_total counter",
              "mcp_supervisor_upstream_request_errors_total{kind=\"error\",server=\"fixture\"} 1")) {
        assertTrue(text.contains(series), series + " in\n" + text);
      }

      HttpResponse<String> admin = gateway.get("/admin/sessions");
      assertEquals(200, admin.statusCode());
      JsonNode report = json(admin.body());
      JsonNode downstream = report.path("downstreamSessions").path(0);
      assertEquals(session.substring(0, 8) + "…", downstream.path("id").asText());
      assertEquals("/servers/fixture/mcp", downstream.path("endpoint").asText());
      assertEquals("test-client", downstream.path("client").path("name").asText());
      JsonNode key = report.path("serverKeys").path(0);
      assertEquals("fixture", key.path("server").asText());
      assertEquals(1, key.path("leases").asInt());
      JsonNode upstream = key.path("sessions").path(0);
      assertEquals("ready", upstream.path("state").asText());
      assertEquals(1, upstream.path("refCount").asInt());
      assertTrue(upstream.path("pid").asLong() > 0);
      assertFalse(admin.body().contains(session), "full session ids are credentials");
      assertFalse(admin.body().contains(SECRET));
      assertFalse(text.contains(SECRET));

      assertEquals("ok", json(gateway.get("/healthz").body()).path("status").asText());
      assertEquals("ready", json(gateway.get("/readyz").body()).path("status").asText());
    }
  }

  @Test
  void stopFinishesInFlightCallsThenEndsEverySession() throws Exception {
    int sessions = 20;
    try (TestGateway gateway = TestGateway.start(TestGateway.stdioFixture("fixture"))) {
      List<CompletableFuture<HttpResponse<String>>> sleeping = new ArrayList<>();
      for (int i = 0; i < sessions; i++) {
        String session = gateway.initialize("/servers/fixture/mcp");
        sleeping.add(
            gateway.postAsync(
                "/servers/fixture/mcp", session, callTool(5, "sleep", "{\"ms\":1500}")));
      }
      awaitLeases(gateway, sessions);

      long stopping = System.nanoTime();
      TestGateway.await(gateway.server.stop(Duration.ofSeconds(20)));
      System.out.println("stop took " + (System.nanoTime() - stopping) / 1_000_000 + " ms");

      for (CompletableFuture<HttpResponse<String>> call : sleeping) {
        // every answer whole: none cut off by a closed connection ("header parser received no
        // bytes")
        HttpResponse<String> answer = call.get(5, TimeUnit.SECONDS);
        assertEquals(
            "slept 1500",
            TestGateway.text(TestGateway.answer(answer)),
            "the in-flight call finished");
      }
      assertEquals(
          0, gateway.snapshot().keys().stream().mapToInt(key -> key.leases().size()).sum());
      assertThrows(
          UncheckedIOException.class, () -> gateway.get("/healthz"), "no longer listening");
    }
  }

  private static void awaitLeases(TestGateway gateway, int expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline
        && gateway.snapshot().keys().stream()
                .mapToInt(key -> key.sessions().stream().mapToInt(s -> s.inFlight()).sum())
                .sum()
            < expected) {
      Thread.sleep(50); // polling an observable state with a bound, not synchronizing
    }
  }

  private static ServerConfig fixtureWithSecret(String name) {
    List<String> command = FixtureProcess.stdioCommand();
    return TestGateway.server(
        name,
        new ServerSpec.Stdio(
            command.get(0), command.subList(1, command.size()), Map.of("API_KEY", SECRET), null));
  }
}
