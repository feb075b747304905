package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.app.demo.DemoServer;
import dev.mcpsupervisor.app.runtime.ChildProcesses;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's start command, as a new user runs it: the jar with no configuration serves the demo
 * server it spawns from itself; SIGTERM ends it with status 0 and takes the demo server process
 * with it.
 */
@Timeout(180)
class GatewayJarIT {

  @Test
  void demoConfigServesToolsAndSigtermEndsEverythingWithStatusZero() {
    try (JarProcess jar = JarProcess.start("--port", "0")) {
      String url = jar.awaitListening();
      assertTrue(url.matches("http://127\\.0\\.0\\.1:\\d+/mcp"), url);
      assertFalse(url.endsWith(":0/mcp"), "the listening line must show the bound port: " + url);
      assertEquals(List.of(JarProcess.LISTENING_PREFIX + url), jar.stdoutLines());

      try (McpSyncClient client = GatewayClients.connect(url, "/mcp")) {
        List<String> tools = client.listTools().tools().stream().map(Tool::name).sorted().toList();
        assertEquals(
            List.of("demo__add", "demo__echo", "demo__progress", "demo__sleep", "demo__time"),
            tools);
        assertEquals(
            "hello from the jar",
            GatewayClients.callText(client, "demo__echo", Map.of("message", "hello from the jar")));
      }
      try (McpSyncClient client = GatewayClients.connect(url, "/servers/demo/mcp")) {
        assertEquals("5", GatewayClients.callText(client, "add", Map.of("a", 2, "b", 3)));
      }

      List<ProcessHandle> demoServers =
          Descendants.running(jar.process().toHandle(), DemoServer.class.getName());
      assertEquals(1, demoServers.size(), "one shared demo server process: " + demoServers);

      jar.process().destroy(); // SIGTERM
      assertEquals(0, jar.awaitExit(), "exit status after SIGTERM; stderr:\n" + jar.stderrText());
      assertTrue(
          ChildProcesses.awaitExit(demoServers, Duration.ofSeconds(5)),
          "demo server outlived the gateway: " + demoServers);
    }
  }
}
