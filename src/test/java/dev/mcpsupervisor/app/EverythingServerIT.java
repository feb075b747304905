package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real third-party server through the gateway: {@code @modelcontextprotocol/server-everything}
 * (npm) as a stdio upstream. Runs when .ci/run has installed it into .ci/.work (CI checks that it
 * did run).
 */
@Timeout(180)
class EverythingServerIT {

  private static final Path CI_WORK =
      Path.of(System.getProperty("mcp-supervisor.ci-work", ".ci/.work"));
  private static final Path SERVER =
      CI_WORK.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");

  @TempDir Path dir;

  @Test
  void everythingServerOverStdioListsToolsAndEchoes() throws IOException {
    assumeTrue(
        Files.isRegularFile(SERVER),
        "server-everything is not installed in " + CI_WORK + " (.ci/run installs it)");
    Path config = dir.resolve("everything.json");
    Files.writeString(config, config(node(), SERVER));
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

  /** The node that .ci/run installed (Node 22) when the machine's is older, else the machine's. */
  private static String node() {
    Path installed = CI_WORK.resolve("node_modules/.bin/node");
    return Files.isExecutable(installed) ? installed.toAbsolutePath().toString() : "node";
  }

  private static String config(String node, Path server) throws IOException {
    ObjectMapper json = new ObjectMapper();
    ObjectNode root = json.createObjectNode();
    ObjectNode everything = root.putObject("mcpServers").putObject("everything");
    everything.put("command", node);
    everything.putArray("args").add(server.toAbsolutePath().toString()).add("stdio");
    return json.writeValueAsString(root);
  }
}
