package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real third-party server through the gateway: {@code @modelcontextprotocol/server-everything}
 * (npm) as a stdio upstream. Runs when .ci/node-env.sh has installed it into .ci/.work (.ci/run
 * checks that it did run).
 */
@Timeout(180)
class EverythingServerIT {

  @TempDir Path dir;

  @Test
  void everythingServerOverStdioListsToolsAndEchoes() {
    NodePeers.assumeInstalled(NodePeers.EVERYTHING);
    Path config =
        GatewayConfigFile.write(
            dir.resolve("everything.json"),
            Map.of(
                "everything",
                GatewayConfigFile.stdio(
                    NodePeers.node(), NodePeers.everythingServer().toString(), "stdio")));
    try (JarProcess jar = JarProcess.start("--config", config.toString(), "--port", "0")) {
      String url = jar.awaitListening();
      try (McpSyncClient client = GatewayClients.connect(url, "/servers/everything/mcp")) {
        List<String> tools = client.listTools().tools().stream().map(Tool::name).toList();
        assertTrue(tools.contains("echo"), "tools: " + tools);
        assertEquals(
            "Echo: through the gateway",
            GatewayClients.callText(client, "echo", Map.of("message", "through the gateway")));
      }
      try (McpSyncClient client = GatewayClients.connect(url, "/mcp")) {
        assertEquals(
            "Echo: aggregated",
            GatewayClients.callText(client, "everything__echo", Map.of("message", "aggregated")));
      }
      List<ProcessHandle> children = jar.process().descendants().toList();
      jar.process().destroy();
      assertEquals(0, jar.awaitExit(), "exit status after SIGTERM; stderr:\n" + jar.stderrText());
      assertTrue(
          ChildProcesses.awaitExit(children, Duration.ofSeconds(5)), "left running: " + children);
    }
  }
}
