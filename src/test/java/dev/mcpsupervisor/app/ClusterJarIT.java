package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three gateway processes of the real jar form one cluster on loopback, each with its own demo
 * server over stdio. The bench spreads every session's requests over the three (initialize on one
 * node, its calls on the others), in both eras: every call answered, with its own payload. Stopping
 * the three leaves no demo server.
 */
@Timeout(240)
class ClusterJarIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "the-secret-of-the-three-jar-processes";
  private static final Duration READY = Duration.ofSeconds(90);

  @Test
  void everySessionsRequestsSpreadOverThreeNodesAreAnswered(@TempDir Path dir) throws Exception {
    List<JarProcess> nodes = new ArrayList<>();
    try {
      int seed = freePort();
      for (int i = 0; i < 3; i++) {
        int artery = i == 0 ? seed : freePort();
        nodes.add(
            JarProcess.start(
                "--config", config(dir.resolve("node" + i + ".json"), artery, seed).toString()));
      }
      List<String> urls = new ArrayList<>();
      for (JarProcess node : nodes) {
        urls.add(node.awaitListening().replace("/mcp", "/servers/demo/mcp"));
      }
      for (String url : urls) {
        awaitReady(URI.create(url).resolve("/readyz"));
      }

      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      Path report = dir.resolve("bench.json");
      int exit =
          Main.run(
              new PrintWriter(out, true),
              new PrintWriter(err, true),
              "bench",
              urls.get(0),
              "--urls",
              urls.get(1) + "," + urls.get(2),
              "-n",
              "12",
              "-m",
              "20",
              "--json",
              report.toString());

      assertEquals(Main.EXIT_OK, exit, out + "\n" + err);
      JsonNode results = JSON.readTree(report.toFile());
      assertEquals(3, results.path("targets").size(), results.toString());
      for (JsonNode era : results.path("runs")) {
        assertEquals(240, era.path("ok").asInt(), era.toString());
        assertEquals(0, era.path("failed").asInt(), era.toString());
        assertEquals(0, era.path("wrong").asInt(), era.toString());
      }
      assertEquals(2, results.path("runs").size(), results.toString());

      List<ProcessHandle> demoServers = new ArrayList<>();
      for (JarProcess node : nodes) {
        demoServers.addAll(
            ChildProcesses.descendantsRunning(
                node.process().toHandle(), DemoServer.class.getName()));
      }
      assertEquals(3, demoServers.size(), "one demo server per node: " + demoServers);
      for (JarProcess node : nodes) {
        node.process().destroy(); // SIGTERM
      }
      for (JarProcess node : nodes) {
        assertEquals(
            0, node.awaitExit(), "exit status after SIGTERM; stderr:\n" + node.stderrText());
      }
      assertTrue(
          ChildProcesses.awaitExit(demoServers, Duration.ofSeconds(10)),
          "a demo server outlived its gateway: " + demoServers);
    } finally {
      nodes.forEach(JarProcess::close);
    }
  }

  /**
   * A node's config: the demo server, any HTTP port, Artery on {@code artery}, seeded at {@code
   * seed}.
   */
  private static Path config(Path file, int artery, int seed) {
    // the demo server from the jar, as the gateway's own default config runs it
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:TieredStopAtLevel=1",
            "-Xmx128m",
            "-cp",
            JarProcess.jar().toString(),
            DemoServer.class.getName());
    Map<String, Object> root = new LinkedHashMap<>();
    root.put(
        "mcpServers",
        Map.of(
            DemoConfig.SERVER_NAME,
            Map.of("command", command.get(0), "args", command.subList(1, command.size()))));
    root.put(
        "gateway",
        Map.of(
            "host",
            "127.0.0.1",
            "port",
            0,
            "cluster",
            Map.of(
                "host",
                "127.0.0.1",
                "port",
                artery,
                "seedNodes",
                List.of("127.0.0.1:" + seed),
                "secret",
                SECRET)));
    try {
      Files.writeString(file, JSON.writeValueAsString(root));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Until the node answers 200 on /readyz (it is Up), bounded by {@link #READY}. */
  private static void awaitReady(URI readyz) throws InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + READY.toNanos();
    int status = -1;
    while (System.nanoTime() < deadline) {
      try {
        status =
            http.send(
                    HttpRequest.newBuilder(readyz).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding())
                .statusCode();
        if (status == 200) {
          return;
        }
      } catch (IOException e) {
        status = -1;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
    }
    throw new AssertionError(
        readyz + " not ready within " + READY + " (last status " + status + ")");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
