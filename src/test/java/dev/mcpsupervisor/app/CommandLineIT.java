package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mcpsupervisor.app.runtime.Versions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar's answers at the command line: version, a bad config or an unsafe bind as a user would
 * see it.
 */
class CommandLineIT {

  @TempDir Path dir;

  @Test
  void badConfigExitsTwoWithOneStderrLineNamingFileAndField() throws IOException {
    Path config = dir.resolve("servers.json");
    Files.writeString(
        config,
        "{\"mcpServers\": {\"github\": {\"url\": \"https://example.com/mcp\", \"transport\": \"htp\"}}}");
    try (JarProcess jar = JarProcess.start("--config", config.toString())) {
      assertEquals(2, jar.awaitExit());
      assertEquals(
          List.of(
              config
                  + ": mcpServers.github.transport: unknown transport \"htp\" (expected stdio, streamable-http or sse)"),
          jar.stderrLines());
      assertEquals(List.of(), jar.stdoutLines());
    }
  }

  @Test
  void anExposedBindWithoutTokensExitsTwoWithOneLineAndStartsOnlyWhenWaived() throws Exception {
    try (JarProcess jar = JarProcess.start("--host", "0.0.0.0", "--port", "0")) {
      assertEquals(2, jar.awaitExit());
      assertEquals(
          List.of(
              "--host: 0.0.0.0 is not a loopback address and gateway.authTokens is empty: set"
                  + " tokens (at least 32 characters each) or gateway.oauth, or pass --allow-unauthenticated"),
          jar.stderrLines());
      assertEquals(List.of(), jar.stdoutLines());
    }
    // no servers, and only Host 127.0.0.1 is served: nothing is offered to the network
    Path config = dir.resolve("exposed.json");
    Files.writeString(
        config, "{\"mcpServers\": {}, \"gateway\": {\"allowedHosts\": [\"127.0.0.1\"]}}");
    try (JarProcess jar =
        JarProcess.start(
            "--config",
            config.toString(),
            "--host",
            "0.0.0.0",
            "--port",
            "0",
            "--allow-unauthenticated")) {
      URI mcp = URI.create(jar.awaitListening());
      assertEquals("0.0.0.0", mcp.getHost());
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
      HttpResponse<String> health =
          client.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + mcp.getPort() + "/healthz"))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, health.statusCode(), health.body());
    }
  }

  @Test
  void portInUseExitsOneWithOneStderrLine() throws IOException {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        JarProcess jar = JarProcess.start("--port", Integer.toString(taken.getLocalPort()))) {
      assertEquals(1, jar.awaitExit());
      assertEquals(
          List.of(
              "mcp-supervisor: cannot listen on 127.0.0.1:"
                  + taken.getLocalPort()
                  + ": [/127.0.0.1:"
                  + taken.getLocalPort()
                  + "] Address already in use"),
          jar.stderrLines());
      assertEquals(List.of(), jar.stdoutLines());
    }
  }

  @Test
  void versionComesFromTheBuild() {
    try (JarProcess jar = JarProcess.start("--version")) {
      assertEquals(0, jar.awaitExit());
      assertEquals(List.of("mcp-supervisor " + Versions.application()), jar.stdoutLines());
    }
  }
}
