package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mcpsupervisor.app.demo.DemoConfig;
import dev.mcpsupervisor.app.runtime.Application;
import dev.mcpsupervisor.app.runtime.ChildProcesses;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The load generator's smoke run, so it cannot rot: the gateway on its demo config, then {@code
 * bench} in this JVM with 3 sessions x 5 calls, 2 in flight, in both protocol eras.
 */
@Timeout(120)
class BenchSmokeTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static Application application;

  @BeforeAll
  static void startTheGatewayOnTheDemoConfig() throws Exception {
    SupervisorConfig demo = DemoConfig.create();
    SupervisorConfig config =
        new SupervisorConfig(demo.servers(), demo.gateway().withAddress("127.0.0.1", 0));
    application = Application.start(config).toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    List<ProcessHandle> children = ProcessHandle.current().children().toList();
    application.stop(Duration.ofSeconds(5)).toCompletableFuture().get(60, TimeUnit.SECONDS);
    if (!ChildProcesses.awaitExit(children, Duration.ofSeconds(10))) {
      ChildProcesses.kill(children);
    }
  }

  @Test
  void everyCallIsAnsweredWithItsOwnPayloadInBothEras(@TempDir Path dir) throws Exception {
    String url =
        application.mcpUrl().replace("/mcp", "/servers/" + DemoConfig.SERVER_NAME + "/mcp");
    Path json = dir.resolve("bench.json");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();

    int exit =
        Main.run(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            "bench",
            url,
            "-n",
            "3",
            "-m",
            "5",
            "-k",
            "2",
            "--pid",
            Long.toString(ProcessHandle.current().pid()),
            "--json",
            json.toString());

    assertEquals(Main.EXIT_OK, exit, out + "\n" + err);
    assertTrue(
        out.toString().contains("session") && out.toString().contains("stateless"), out.toString());
    JsonNode report = JSON.readTree(json.toFile());
    assertEquals(url, report.path("target").asText());
    assertEquals(3, report.path("sessions").asInt());
    assertEquals(5, report.path("callsPerSession").asInt());
    assertEquals(2, report.path("inFlightPerSession").asInt());
    JsonNode runs = report.path("runs");
    assertEquals(
        List.of("2025-06-18", "2026-07-28"),
        List.of(
            runs.path(0).path("protocolVersion").asText(),
            runs.path(1).path("protocolVersion").asText()));
    for (JsonNode run : runs) {
      assertEquals(15, run.path("ok").asInt(), run.toString());
      assertEquals(0, run.path("failed").asInt(), run.toString());
      assertEquals(0, run.path("wrong").asInt(), run.toString());
      assertEquals(15, run.path("latencyMicros").path("count").asInt(), run.toString());
      assertEquals(3, run.path("connectMicros").path("count").asInt(), run.toString());
      JsonNode latency = run.path("latencyMicros");
      assertTrue(latency.path("p50").asLong() > 0, run.toString());
      assertTrue(latency.path("p50").asLong() <= latency.path("p90").asLong(), run.toString());
      assertTrue(latency.path("p99").asLong() <= latency.path("max").asLong(), run.toString());
      assertTrue(run.path("callsPerSecond").asDouble() > 0, run.toString());
      assertTrue(run.path("cpuMicrosPerCall").asLong() > 0, run.toString());
    }
  }
}
