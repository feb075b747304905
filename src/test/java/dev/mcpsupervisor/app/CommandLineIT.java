package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jar's answers before it ever listens: version, and a bad config as a user would see it. */
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
