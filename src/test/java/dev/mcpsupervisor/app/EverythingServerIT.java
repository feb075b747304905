package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.SupervisorClient;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.app.runtime.ChildProcesses;
import dev.mcpsupervisor.protocol.config.Root;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A real third-party server through the gateway, and embedded: {@code
 * @modelcontextprotocol/server-everything} (npm) as a stdio upstream. Runs when .ci/node-env.sh has
 * installed it into .ci/.work (.ci/run checks that it did run).
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

  /**
   * Issue 32: server-everything asks for roots 350 ms after initialize, while a cold start's
   * callers are in flight. Their echo calls must not be taken for interactive ones (which opened
   * maxSessions processes), and the roots request is answered, from the configuration.
   */
  @Test
  void twentyColdCallersOfAPlainToolShareOneProcessAndTheRootsRequestIsAnswered() throws Exception {
    NodePeers.assumeInstalled(NodePeers.EVERYTHING);
    Logger stderr = (Logger) LoggerFactory.getLogger("dev.mcpsupervisor.upstream.stderr");
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    stderr.addAppender(lines);
    SupervisorConfig config =
        SupervisorConfig.builder()
            .stdio("everything", NodePeers.node(), NodePeers.everythingServer().toString(), "stdio")
            .roots(List.of(new Root("file:///work/project", "project")))
            .build();
    Set<ProcessHandle> before = ProcessHandle.current().children().collect(Collectors.toSet());
    ExecutorService threads = Executors.newFixedThreadPool(COLD_CALLERS);
    try (SessionSupervisor supervisor = SessionSupervisor.start(config)) {
      SupervisorClient client = SupervisorClient.of(supervisor);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> callers = new ArrayList<>();
      for (int i = 0; i < COLD_CALLERS; i++) {
        String caller = "caller-" + i;
        callers.add(threads.submit(() -> echoForAWhile(client, caller, start)));
      }
      start.countDown();
      int calls = 0;
      for (Future<Integer> caller : callers) {
        calls += caller.get(120, TimeUnit.SECONDS);
      }
      SupervisorSnapshot.KeySnapshot key =
          supervisor.snapshot().toCompletableFuture().get(10, TimeUnit.SECONDS).keys().get(0);
      List<ProcessHandle> servers =
          ProcessHandle.current().children().filter(child -> !before.contains(child)).toList();
      System.out.printf(
          "%d echo calls by %d cold callers: %d upstream session(s), %d server process(es)%n",
          calls, COLD_CALLERS, key.sessions().size(), servers.size());
      assertEquals(1, key.sessions().size(), "upstream sessions: " + key.sessions());
      assertEquals(1, servers.size(), "server processes: " + servers);
      assertTrue(
          client
              .callTool("caller-0", "everything", "get-roots-list", Map.of())
              .toCompletableFuture()
              .get(60, TimeUnit.SECONDS)
              .text()
              .contains("URI: file:///work/project"),
          "the server holds the configured roots");
    } finally {
      threads.shutdownNow();
      stderr.detachAppender(lines);
    }
    List<String> refused =
        lines.list.stream()
            .map(ILoggingEvent::getFormattedMessage)
            .filter(line -> line.contains("-32009"))
            .toList();
    assertTrue(refused.isEmpty(), "the server's requests refused: " + refused);
  }

  private static final int COLD_CALLERS = 20;

  /** How long each caller keeps calling from its first answer: well past the roots request. */
  private static final Duration CALLING = Duration.ofMillis(1500);

  /** Echo calls one after another, from the start until {@link #CALLING} after the first answer. */
  private static int echoForAWhile(SupervisorClient client, String caller, CountDownLatch start)
      throws Exception {
    start.await();
    long until = 0;
    int calls = 0;
    do {
      String message = caller + " " + calls;
      assertEquals(
          "Echo: " + message,
          client
              .callTool(caller, "everything", "echo", Map.of("message", message))
              .toCompletableFuture()
              .get(60, TimeUnit.SECONDS)
              .text());
      if (calls++ == 0) {
        until = System.nanoTime() + CALLING.toNanos();
      }
    } while (System.nanoTime() < until);
    return calls;
  }
}
