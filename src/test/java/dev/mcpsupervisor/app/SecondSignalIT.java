package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.app.demo.DemoServer;
import dev.mcpsupervisor.app.runtime.ChildProcesses;
import dev.mcpsupervisor.app.runtime.TerminationSignals;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second SIGTERM while the gateway drains (a double Ctrl-C) exits at once, but never orphans a
 * stdio server: every server tree the JVM started is KILLed first — the server and the children it
 * spawned, checked in the OS process table. And a stdio server runs in a process group of its own,
 * so its children cannot escape that.
 */
@Timeout(180)
class SecondSignalIT {

  /** Marks the grandchild: a sleep the stdio server's shell leaves running beside the server. */
  private static final String GRANDCHILD_MARKER = "sleep 3137";

  @Test
  void aSecondTermKillsEveryStdioServerTreeBeforeExiting(@TempDir Path dir) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    String server =
        GRANDCHILD_MARKER
            + " & exec '"
            + java
            + "' -cp '"
            + JarProcess.jar()
            + "' "
            + DemoServer.class.getName();
    Path config = dir.resolve("servers.json");
    Files.writeString(
        config,
        "{\"mcpServers\":{\"demo\":{\"command\":\"sh\",\"args\":[\"-c\",\""
            + server.replace("\"", "\\\"")
            + "\"]}}}");
    List<ProcessHandle> tree = new ArrayList<>();
    try (JarProcess jar = JarProcess.start("--config", config.toString(), "--port", "0")) {
      String url = jar.awaitListening();
      try (McpSyncClient client = GatewayClients.connect(url, "/servers/demo/mcp")) {
        assertEquals("ok", GatewayClients.callText(client, "echo", Map.of("message", "ok")));
        List<ProcessHandle> servers =
            Descendants.running(jar.process().toHandle(), DemoServer.class.getName());
        List<ProcessHandle> grandchildren =
            Descendants.running(jar.process().toHandle(), GRANDCHILD_MARKER);
        assertEquals(1, servers.size(), "the stdio server: " + servers);
        assertEquals(1, grandchildren.size(), "the child it left running: " + grandchildren);
        tree.addAll(servers);
        tree.addAll(grandchildren);

        // a call in flight keeps the graceful stop busy, so the second TERM arrives while it drains
        CompletableFuture<McpSchema.CallToolResult> slow =
            CompletableFuture.supplyAsync(
                () ->
                    client.callTool(new McpSchema.CallToolRequest("sleep", Map.of("ms", 30_000))));
        // the first TERM only once the gateway shows the call sent upstream and not answered
        awaitInFlightUpstream(url, "demo");
        terminate(jar.process().pid());
        // two signals sent at once can merge into one pending signal: the second follows the
        // first's handling
        awaitStderr(jar, "SIGTERM received");
        terminate(jar.process().pid());
        assertEquals(
            TerminationSignals.FORCED_EXIT, jar.awaitExit(), "stderr:\n" + jar.stderrText());
        slow.cancel(true);
      }
      assertTrue(
          ChildProcesses.awaitExit(tree, Duration.ofSeconds(10)),
          "stdio server tree outlived the gateway: "
              + tree.stream().filter(ProcessHandle::isAlive).map(ProcessHandle::pid).toList());
      assertTrue(jar.stderrText().contains("killed 1 stdio server"), jar.stderrText());
    } finally {
      ChildProcesses.kill(tree); // never leave them behind, even when the test fails
    }
  }

  @Test
  void childrenOfAStdioServerThatDiesOnItsOwnAreEnded(@TempDir Path dir) throws Exception {
    // the server leaves a child behind (its pid in a file) and exits at once
    Path pidFile = dir.resolve("child.pid");
    String server = GRANDCHILD_MARKER + " & echo $! > '" + pidFile + "'; exit 3";
    Path config = dir.resolve("servers.json");
    Files.writeString(
        config,
        "{\"mcpServers\":{\"dying\":{\"command\":\"sh\",\"args\":[\"-c\",\"" + server + "\"]}}}");
    List<ProcessHandle> orphans = new ArrayList<>();
    try (JarProcess jar = JarProcess.start("--config", config.toString(), "--port", "0")) {
      String url = jar.awaitListening();
      try (McpSyncClient client = GatewayClients.connect(url, "/servers/dying/mcp")) {
        client.listTools(); // the gateway starts the server, which dies at once
      } catch (RuntimeException expected) {
        // the server is down: whatever the client is told, the point is the process table below
      }
      long childPid = awaitPid(pidFile);
      ProcessHandle.of(childPid).ifPresent(orphans::add);
      assertTrue(
          ChildProcesses.awaitExit(orphans, Duration.ofSeconds(10)),
          "the child "
              + childPid
              + " of the exited server is still alive (re-parented, outside the gateway's tree)");
    } finally {
      ChildProcesses.kill(orphans);
    }
  }

  /**
   * The pid the server wrote (bounded wait: the file appears when the gateway starts the server).
   */
  private static long awaitPid(Path file) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      if (Files.exists(file)) {
        String text = Files.readString(file).strip();
        if (!text.isEmpty()) {
          return Long.parseLong(text);
        }
      }
      TimeUnit.MILLISECONDS.sleep(
          20); // polling a file the server writes: there is no event to wait on
    }
    throw new AssertionError("the stdio server never started (no " + file + ")");
  }

  /**
   * Waits (bounded) until the gateway's {@code /metrics} counts a request of {@code server} sent
   * upstream and not yet answered ({@code mcp_supervisor_upstream_inflight_requests}, a snapshot of
   * the supervisor taken at each scrape).
   */
  private static void awaitInFlightUpstream(String mcpUrl, String server)
      throws IOException, InterruptedException {
    URI metrics = URI.create(mcpUrl.replaceFirst("/mcp$", "/metrics"));
    Pattern gauge =
        Pattern.compile(
            "(?m)^mcp_supervisor_upstream_inflight_requests\\{[^}]*server=\""
                + Pattern.quote(server)
                + "\"[^}]*} ([0-9.]+)$");
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    String last = "";
    while (System.nanoTime() < deadline) {
      last =
          http.send(HttpRequest.newBuilder(metrics).GET().build(), BodyHandlers.ofString()).body();
      Matcher matcher = gauge.matcher(last);
      if (matcher.find() && Double.parseDouble(matcher.group(1)) >= 1) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(10); // polling a gauge: the gateway has no event to wait on
    }
    throw new AssertionError("no request of " + server + " in flight within 10 s:\n" + last);
  }

  /** Waits (bounded) until the jar's stderr shows {@code text}. */
  private static void awaitStderr(JarProcess jar, String text) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!jar.stderrText().contains(text)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no \"" + text + "\" on stderr within 10 s:\n" + jar.stderrText());
      }
      TimeUnit.MILLISECONDS.sleep(
          10); // polling the process's output: it has no other event to wait on
    }
  }

  private static void terminate(long pid) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-TERM", Long.toString(pid)).inheritIO().start();
    assertTrue(kill.waitFor(5, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -TERM " + pid);
  }
}
