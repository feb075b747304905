package dev.mcpsupervisor.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Upstreams that speak 2026-07-28 only, written with the TypeScript SDK v2 server (npm): they
 * answer a 2025 initialize with -32022 and ask for elicitation and sampling with input_required
 * results (src/test/node/v2-server.mjs), over stdio and over Streamable HTTP. The gateway finds out
 * on its own ({@code protocol} left at its default, auto) or is told ({@code "protocol":
 * "2026-07-28"}). A v1 SDK client in a 2025 session gets each input_required round as real
 * server-to-client requests its handlers answer; a v2 client pinned to 2026-07-28 gets the rounds
 * themselves.
 */
@Timeout(300)
class ModernUpstreamIT {

  private static final String MODERN = "2026-07-28";

  private static final String[] PEERS = {
    NodePeers.SERVER_V2, NodePeers.CLIENT_V2, NodePeers.SDK_V1
  };

  @TempDir static Path dir;
  private static Path scripts;
  private static NodeServerProcess httpServer;
  private static JarProcess gateway;

  @BeforeEach
  void requirePeers() {
    NodePeers.assumeInstalled(PEERS);
  }

  @BeforeAll
  static void startModernServersBehindTheGateway() throws IOException {
    if (!NodePeers.missing(PEERS).isEmpty()) {
      return; // requirePeers skips every test
    }
    scripts = NodePeers.scripts(Files.createDirectory(dir.resolve("scripts")));
    httpServer =
        NodeServerProcess.start(
            dir, "v2-server-http", NodePeers.command(scripts, "v2-server.mjs", "http", "0"));
    gateway = startGateway("auto.json", servers(Map.of()));
  }

  @AfterAll
  static void stopEverything() {
    if (gateway != null) {
      gateway.close();
    }
    if (httpServer != null) {
      httpServer.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      textBlock =
          """
          /servers/modern-stdio/mcp, ''
          /servers/modern-http/mcp,  ''
          /mcp,                      modern-stdio__
          /mcp,                      modern-http__
          """)
  void v1ClientSessionGetsEachInputRequiredRoundAsRequestsItsHandlersAnswer(
      String endpoint, String prefix) {
    runV1Client(gateway, endpoint, prefix);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"/servers/modern-stdio/mcp", "/servers/modern-http/mcp"})
  void pinnedV2ClientGetsTheInputRequiredRoundsAndRetries(String endpoint) {
    NodeClientRun.run(
            dir,
            "v2-client" + endpoint.replace('/', '-'),
            NodePeers.command(
                scripts, "v2-client.mjs", base(gateway) + endpoint, "--peer", "modern"))
        .assertSteps(
            () -> gatewayLog(gateway),
            "server/discover",
            "tools/list",
            "echo",
            "elicitation",
            "sampling",
            "done");
  }

  @Test
  void upstreamsDeclaredModernInTheConfigServeTheV1Client() {
    try (JarProcess declared = startGateway("declared.json", servers(Map.of("protocol", MODERN)))) {
      runV1Client(declared, "/servers/modern-stdio/mcp", "");
      runV1Client(declared, "/servers/modern-http/mcp", "");
    }
  }

  /** Both modern servers, each entry with the extra fields. */
  private static Map<String, Map<String, Object>> servers(Map<String, Object> extra) {
    Map<String, Object> stdio =
        GatewayConfigFile.stdio(
            NodePeers.node(), scripts.resolve("v2-server.mjs").toString(), "stdio");
    Map<String, Object> http = GatewayConfigFile.url(httpServer.url());
    for (Map.Entry<String, Object> field : extra.entrySet()) {
      stdio = GatewayConfigFile.with(stdio, field.getKey(), field.getValue());
      http = GatewayConfigFile.with(http, field.getKey(), field.getValue());
    }
    Map<String, Map<String, Object>> servers = new LinkedHashMap<>();
    servers.put("modern-stdio", stdio);
    servers.put("modern-http", http);
    return servers;
  }

  private static JarProcess startGateway(
      String configName, Map<String, Map<String, Object>> servers) {
    Path config = GatewayConfigFile.write(dir.resolve(configName), servers);
    JarProcess jar = JarProcess.start("--config", config.toString(), "--port", "0");
    try {
      jar.awaitListening();
      return jar;
    } catch (RuntimeException e) {
      jar.close();
      throw e;
    }
  }

  private static void runV1Client(JarProcess jar, String endpoint, String prefix) {
    NodeClientRun.run(
            dir,
            "v1-client" + endpoint.replace('/', '-') + prefix,
            NodePeers.command(
                scripts,
                "v1-client.mjs",
                base(jar) + endpoint,
                "--peer",
                "modern",
                "--prefix",
                prefix))
        .assertSteps(
            () -> gatewayLog(jar),
            "initialize",
            "tools/list",
            "echo",
            "elicitation",
            "sampling",
            "terminate",
            "done");
  }

  private static String base(JarProcess jar) {
    return jar.awaitListening().replaceFirst("/mcp$", "");
  }

  private static String gatewayLog(JarProcess jar) {
    return "gateway stderr (last 40 lines):\n"
        + String.join("\n", NodeClientRun.tail(jar.stderrLines(), 40))
        + "\nv2 HTTP server stderr:\n"
        + httpServer.stderrText();
  }
}
