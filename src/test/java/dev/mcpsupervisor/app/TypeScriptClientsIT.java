package dev.mcpsupervisor.app;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Clients nobody here wrote, from npm, through the gateway jar to server-everything (npm, a 2025
 * session-era stdio server), on the per-server endpoint and on the aggregate one (whose tool names
 * carry the server's prefix). The TypeScript SDK v2 client is pinned to 2026-07-28: stateless
 * requests, and elicitation and sampling reach it as input_required rounds. The v1 SDK client holds
 * a 2025 session and gets them as server-to-client requests. Every answer is checked by the scripts
 * in src/test/node (see peer-steps.mjs).
 */
@Timeout(300)
class TypeScriptClientsIT {

  /** Endpoint, and the prefix of the upstream's tool names there. */
  private static final String ENDPOINTS =
      """
      /servers/everything/mcp, ''
      /mcp,                    everything__
      """;

  /** The endpoint row that is the stdio front (see peer-steps.mjs stdioServer). */
  private static final String STDIO = "stdio";

  private static final String ENDPOINTS_AND_STDIO = ENDPOINTS + STDIO + ", everything__\n";

  private static final String[] PEERS = {
    NodePeers.EVERYTHING, NodePeers.CLIENT_V2, NodePeers.SDK_V1
  };

  @TempDir static Path dir;
  private static Path scripts;
  private static JarProcess gateway;
  private static String gatewayBase;
  private static Path config;

  @BeforeEach
  void requirePeers() {
    NodePeers.assumeInstalled(PEERS);
  }

  @BeforeAll
  static void startGatewayInFrontOfEverything() throws IOException {
    if (!NodePeers.missing(PEERS).isEmpty()) {
      return; // requirePeers skips every test
    }
    scripts = NodePeers.scripts(Files.createDirectory(dir.resolve("scripts")));
    config =
        GatewayConfigFile.write(
            dir.resolve("gateway.json"),
            Map.of(
                "everything",
                GatewayConfigFile.stdio(
                    NodePeers.node(), NodePeers.everythingServer().toString(), "stdio")));
    gateway = JarProcess.start("--config", config.toString(), "--port", "0");
    gatewayBase = gateway.awaitListening().replaceFirst("/mcp$", "");
  }

  @AfterAll
  static void stopGateway() {
    if (gateway != null) {
      gateway.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(textBlock = ENDPOINTS)
  void pinnedV2ClientDiscoversListsToolsAndEchoes(String endpoint, String prefix) {
    run("v2-client.mjs", endpoint, prefix, "echo")
        .assertSteps(
            TypeScriptClientsIT::gatewayLog, "server/discover", "tools/list", "echo", "done");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(textBlock = ENDPOINTS)
  void pinnedV2ClientAnswersSamplingAndElicitationThroughInputRequiredRounds(
      String endpoint, String prefix) {
    run("v2-client.mjs", endpoint, prefix, "sampling,elicitation")
        .assertSteps(
            TypeScriptClientsIT::gatewayLog,
            "server/discover",
            "tools/list",
            "sampling",
            "elicitation",
            "done");
  }

  /**
   * Also over the stdio front: the client starts {@code mcp-supervisor stdio} as its server process
   * (as a desktop client does), and at the end closes its stdin: the process is gone within 2 s.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(textBlock = ENDPOINTS_AND_STDIO)
  void v1ClientSessionEchoesAndAnswersSamplingAndElicitationRequests(
      String endpoint, String prefix) {
    run("v1-client.mjs", endpoint, prefix, "echo,sampling,elicitation")
        .assertSteps(
            TypeScriptClientsIT::gatewayLog,
            "initialize",
            "tools/list",
            "echo",
            "sampling",
            "elicitation",
            "terminate",
            "done");
  }

  /** The v2 client pinned to 2026-07-28 over the stdio front: its rounds pass through it. */
  @Test
  void pinnedV2ClientStartsTheStdioFrontAndAnswersRounds() {
    run("v2-client.mjs", STDIO, "everything__", "echo,sampling,elicitation")
        .assertSteps(
            TypeScriptClientsIT::gatewayLog,
            "server/discover",
            "tools/list",
            "echo",
            "sampling",
            "elicitation",
            "terminate",
            "done");
  }

  /** The command line that starts the stdio front in front of server-everything, as a URL. */
  private static String stdioUrl() {
    List<String> server =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            JarProcess.warmupCalls(0),
            "-jar",
            JarProcess.jar().toString(),
            "stdio",
            "--config",
            config.toString());
    try {
      return "stdio:" + new ObjectMapper().writeValueAsString(server);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static NodeClientRun run(String script, String endpoint, String prefix, String calls) {
    String name = script.replace(".mjs", "") + endpoint.replace('/', '-') + "-" + calls;
    return NodeClientRun.run(
        dir,
        name,
        NodePeers.command(
            scripts,
            script,
            endpoint.equals(STDIO) ? stdioUrl() : gatewayBase + endpoint,
            "--peer",
            "everything",
            "--prefix",
            prefix,
            "--calls",
            calls));
  }

  private static String gatewayLog() {
    return "gateway stderr (last 40 lines):\n"
        + String.join("\n", NodeClientRun.tail(gateway.stderrLines(), 40));
  }
}
