package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.app.demo.DemoServer;
import dev.mcpsupervisor.app.runtime.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar as a desktop client starts it: {@code stdio --config} with the fixture and the demo
 * server behind it, and {@code connect URL} in front of a gateway that restarts. Its stdout carries
 * JSON-RPC only; it ends with its stdin or its client, and leaves no process behind.
 */
@Timeout(180)
class StdioFrontIT {

  /** A bound for a loaded 2-core CI machine: 2 s was overrun at load average 50. */
  private static final Duration EXIT_AFTER_STDIN = Duration.ofSeconds(10);

  private static final Duration NO_ORPHAN_AFTER_KILL = Duration.ofSeconds(5);

  @Test
  void aStdioClientGetsEveryServerBehindIt(@TempDir Path dir) throws Exception {
    Path config = servers(dir);
    try (StdioClient client = StdioClient.jar("stdio", "--config", config.toString())) {
      List<String> tools = client.fixtureBasics();
      assertTrue(tools.contains("fixture__echo") && tools.contains("demo__add"), tools.toString());

      // the upstream dies between two calls: the next one is answered by a new one (an idempotent
      // tool: one sent before the gateway saw the death is sent again, not failed)
      String pid =
          StdioClient.text(
              client.request(5, "tools/call", StdioClient.toolCall("fixture__pid", "{}")));
      ProcessHandle upstream = ProcessHandle.of(Long.parseLong(pid)).orElseThrow();
      upstream.destroyForcibly();
      upstream.onExit().get(10, TimeUnit.SECONDS);
      JsonNode after =
          client.request(
              6,
              "tools/call",
              StdioClient.toolCall("fixture__idempotent_echo", "{\"message\":\"again\"}"));
      assertEquals("again", StdioClient.text(after), after.toString());
      assertTrue(
          !pid.equals(
              StdioClient.text(
                  client.request(7, "tools/call", StdioClient.toolCall("fixture__pid", "{}")))),
          "a new process");

      List<ProcessHandle> children = client.process.descendants().toList();
      assertTrue(children.size() >= 2, "the fixture and the demo server run: " + children);
      client.closeStdin();
      assertTrue(
          client.process.waitFor(EXIT_AFTER_STDIN.toMillis(), TimeUnit.MILLISECONDS),
          "exits within "
              + EXIT_AFTER_STDIN
              + " of stdin closing; stderr:\n"
              + client.stderrText());
      assertEquals(0, client.process.exitValue(), client.stderrText());
      assertTrue(
          ChildProcesses.awaitExit(children, Duration.ofSeconds(2)),
          "no server process outlives it: " + children);
      assertEquals(List.of(), client.notJsonRpc, "stdout carries JSON-RPC only");
    }
  }

  @Test
  void oneServerKeepsItsToolsNames(@TempDir Path dir) {
    try (StdioClient client =
        StdioClient.jar("stdio", "--config", servers(dir).toString(), "--server", "demo")) {
      client.request(0, "initialize", StdioClient.initializeParams("{}"));
      client.notify("notifications/initialized");
      List<String> tools = client.toolNames(1);
      assertTrue(tools.contains("add") && !tools.contains("fixture__echo"), tools.toString());
      assertEquals(
          "5",
          StdioClient.text(
              client.request(2, "tools/call", StdioClient.toolCall("add", "{\"a\":2,\"b\":3}"))));
    }
    try (StdioClient unknown = StdioClient.jar("stdio", "--server", "nope")) {
      assertEquals(
          2,
          unknown.process.onExit().orTimeout(30, TimeUnit.SECONDS).join().exitValue(),
          "an unknown server is a usage error");
    }
  }

  @Test
  void badInputIsAnsweredWithErrorsAndNeverStopsIt() {
    try (StdioClient client = StdioClient.jar("stdio")) {
      JsonNode initialized = client.request(0, "initialize", StdioClient.initializeParams("{}"));
      assertTrue(initialized.has("result"), initialized.toString());
      System.out.println(
          "stdio-startup (demo server only): first initialize answered "
              + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - client.startedNanos)
              + " ms after the process started");
      client.send("this is not JSON");
      assertEquals(-32700, client.next().path("error").path("code").asInt());
      client.send(
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":\""
              + "x".repeat(20 << 20)
              + "\"}");
      JsonNode tooLong = client.next();
      assertEquals(-32600, tooLong.path("error").path("code").asInt(), tooLong.toString());
      client.send("[1, \"junk\", {\"no\":\"method\"}]");
      for (int i = 0; i < 3; i++) {
        assertEquals(-32600, client.next().path("error").path("code").asInt());
      }
      assertEquals(
          "{}", client.request(3, "ping", null).path("result").toString(), "still serving");
      assertEquals(List.of(), client.notJsonRpc, "stdout carries JSON-RPC only");
    }
  }

  @Test
  void aKilledClientLeavesNoProcessBehind(@TempDir Path dir) throws Exception {
    // the client (sh) starts the jar, initializes (which starts the demo server) and keeps its
    // stdin open (sleep holds the pipe), then dies
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ObjectNode initialize = StdioClient.JSON.createObjectNode().put("jsonrpc", "2.0").put("id", 0);
    initialize.put("method", "initialize").set("params", StdioClient.initializeParams("{}"));
    String command =
        "(printf '%s\\n' '"
            + initialize
            + "'; sleep 600) | '"
            + java
            + "' "
            + JarProcess.warmupCalls(0)
            + " -jar '"
            + JarProcess.jar()
            + "' stdio > /dev/null & wait";
    Process shell = new ProcessBuilder("sh", "-c", command).start();
    try {
      ProcessHandle jar = awaitDescendant(shell.toHandle(), "mcp-supervisor.jar");
      awaitDescendant(jar, DemoServer.class.getName());
      List<ProcessHandle> all = new ArrayList<>(jar.descendants().toList());
      all.add(jar);
      shell.destroyForcibly(); // SIGKILL: no chance to tell its children
      assertTrue(
          ChildProcesses.awaitExit(all, NO_ORPHAN_AFTER_KILL),
          "the jar and its servers end within " + NO_ORPHAN_AFTER_KILL + ": " + all);
    } finally {
      shell.descendants().forEach(ProcessHandle::destroyForcibly);
      shell.destroyForcibly();
    }
  }

  @Test
  void connectOutlivesARestartOfTheGatewayBehindIt() throws Exception {
    int port = freePort();
    JarProcess gateway = JarProcess.start("--port", Integer.toString(port));
    try {
      String url = gateway.awaitListening();
      try (StdioClient client = StdioClient.jar("connect", url)) {
        client.request(0, "initialize", StdioClient.initializeParams("{}"));
        client.notify("notifications/initialized");
        assertEquals(
            "5",
            StdioClient.text(
                client.request(
                    1, "tools/call", StdioClient.toolCall("demo__add", "{\"a\":2,\"b\":3}"))));

        gateway.process().destroy(); // SIGTERM
        assertEquals(0, gateway.awaitExit(), gateway.stderrText());
        gateway = JarProcess.start("--port", Integer.toString(port));
        gateway.awaitListening();

        JsonNode after =
            client.request(2, "tools/call", StdioClient.toolCall("demo__add", "{\"a\":4,\"b\":5}"));
        assertEquals("9", StdioClient.text(after), after + "\n" + client.stderrText());
        client.closeStdin();
        assertTrue(
            client.process.waitFor(EXIT_AFTER_STDIN.toMillis(), TimeUnit.MILLISECONDS),
            client.stderrText());
        assertEquals(List.of(), client.notJsonRpc, "stdout carries JSON-RPC only");
      }
    } finally {
      gateway.close();
    }
  }

  /**
   * A gateway that closes every answer's stream right after its priming event (as a proxy that cuts
   * long responses would): connect resumes it on the session's GET with Last-Event-ID, and the
   * client gets its answer as if nothing happened.
   */
  @Test
  void connectResumesAStreamTheGatewayCut() {
    JarProcess gateway =
        JarProcess.startWithJvmOptions(
            List.of(
                JarProcess.warmupCalls(0),
                "-Dmcp-supervisor.http.sseResume.streamAfter=0s",
                "-Dmcp-supervisor.http.sseResume.closeConnectionAfter=100ms"),
            "--port",
            "0");
    try {
      String url = gateway.awaitListening();
      try (StdioClient client = StdioClient.jar("connect", url)) {
        client.request(0, "initialize", StdioClient.initializeParams("{}"));
        client.notify("notifications/initialized");
        JsonNode slept =
            client.request(1, "tools/call", StdioClient.toolCall("demo__sleep", "{\"ms\":1000}"));
        assertTrue(StdioClient.text(slept).contains("1000"), slept + "\n" + client.stderrText());
        assertEquals(List.of(), client.notJsonRpc, "stdout carries JSON-RPC only");
      }
    } finally {
      gateway.close();
    }
  }

  private static Path servers(Path dir) {
    List<String> fixture = FixtureProcess.stdioCommand();
    List<String> demo =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            JarProcess.jar().toString(),
            DemoServer.class.getName());
    return GatewayConfigFile.write(
        dir.resolve("servers.json"),
        Map.of(
            "fixture",
            GatewayConfigFile.stdio(
                fixture.get(0), fixture.subList(1, fixture.size()).toArray(String[]::new)),
            "demo",
            GatewayConfigFile.stdio(
                demo.get(0), demo.subList(1, demo.size()).toArray(String[]::new))));
  }

  /** The first descendant of {@code parent} whose command line has {@code marker}, bounded. */
  private static ProcessHandle awaitDescendant(ProcessHandle parent, String marker) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      List<ProcessHandle> found = Descendants.running(parent, marker);
      if (!found.isEmpty()) {
        return found.get(0);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }
    throw new AssertionError("no process with " + marker + " under " + parent.pid());
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
