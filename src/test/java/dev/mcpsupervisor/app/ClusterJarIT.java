package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
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
  private static final int KILL_SESSIONS = 30;

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
      stopLeavingNoDemoServer(nodes, demoServers);
    } finally {
      nodes.forEach(JarProcess::close);
    }
  }

  /**
   * {@code kill -9} of the node that created every session, under load through the other two: the
   * calls in flight on it fail with the retryable "send it again", every session answers again
   * through the survivors with no new initialize, and how long that took is printed
   * (docs/benchmarks .md quotes it). The split-brain resolver's {@code stable-after} is 3 s here
   * (20 s by default).
   */
  @Test
  void aKilledNodesSessionsAnswerAgainThroughTheOthers(@TempDir Path dir) throws Exception {
    List<JarProcess> nodes = new ArrayList<>();
    ExecutorService callers = Executors.newFixedThreadPool(KILL_SESSIONS);
    try {
      int seed = freePort();
      for (int i = 0; i < 3; i++) {
        int artery = i == 0 ? seed : freePort();
        nodes.add(
            JarProcess.startWithJvmOptions(
                List.of(
                    "-Dmcp-supervisor.cluster-pekko.pekko.cluster.split-brain-resolver.stable-after=3s"),
                "--config",
                config(dir.resolve("node" + i + ".json"), artery, seed).toString()));
      }
      List<URI> urls = new ArrayList<>();
      for (JarProcess node : nodes) {
        urls.add(URI.create(node.awaitListening().replace("/mcp", "/servers/demo/mcp")));
      }
      for (URI url : urls) {
        awaitReady(url.resolve("/readyz"));
      }
      List<ProcessHandle> demoServers = new ArrayList<>();
      for (JarProcess node : nodes) {
        demoServers.addAll(
            ChildProcesses.descendantsRunning(
                node.process().toHandle(), DemoServer.class.getName()));
      }

      HttpClient http = HttpClient.newHttpClient();
      AtomicBoolean running = new AtomicBoolean(true);
      AtomicLongArray answered = new AtomicLongArray(KILL_SESSIONS);
      // per session: 1 + nanoseconds from the kill to the answer of its first call sent after it
      AtomicLongArray firstAfterKill = new AtomicLongArray(KILL_SESSIONS);
      AtomicBoolean killed = new AtomicBoolean();
      AtomicLong killedAt = new AtomicLong();
      Queue<String> failures = new ConcurrentLinkedQueue<>();
      List<CompletableFuture<Void>> loops = new ArrayList<>();
      for (int n = 0; n < KILL_SESSIONS; n++) {
        int session = n;
        McpHttpSession opened = McpHttpSession.open(http, urls.get(0));
        loops.add(
            CompletableFuture.runAsync(
                () -> {
                  for (int call = 0; running.get(); call++) {
                    boolean sentAfterKill = killed.get();
                    ObjectNode arguments = JSON.createObjectNode().put("a", session).put("b", call);
                    try {
                      String sum =
                          opened
                              .via(urls.get(1 + (session + call) % 2))
                              .callToolText("add", arguments);
                      assertEquals(Integer.toString(session + call), sum);
                      answered.incrementAndGet(session);
                      if (sentAfterKill && firstAfterKill.get(session) == 0) {
                        firstAfterKill.set(session, 1 + System.nanoTime() - killedAt.get());
                      }
                    } catch (RuntimeException e) {
                      failures.add("session " + session + " call " + call + ": " + e.getMessage());
                    }
                  }
                },
                callers));
      }
      awaitEvery(answered, 3, "before the kill");

      killedAt.set(System.nanoTime());
      killed.set(true);
      nodes.get(0).process().destroyForcibly(); // SIGKILL
      awaitEvery(firstAfterKill, 1, "after the kill");
      long recovered = 0;
      for (int n = 0; n < KILL_SESSIONS; n++) {
        recovered = Math.max(recovered, firstAfterKill.get(n) - 1);
      }
      running.set(false);
      CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      System.out.println(
          "kill-recovery: every one of "
              + KILL_SESSIONS
              + " sessions answered again "
              + Duration.ofNanos(recovered).toMillis()
              + " ms after kill -9; failed calls: "
              + failures.size());
      assertTrue(
          failures.size() <= KILL_SESSIONS,
          "only calls in flight on the killed node fail: " + failures);
      failures.forEach(
          failure ->
              assertTrue(
                  failure.contains("send it again"),
                  "a call lost with its node is told to send it again: " + failure));

      stopLeavingNoDemoServer(nodes.subList(1, 3), demoServers);
    } finally {
      callers.shutdownNow();
      nodes.forEach(JarProcess::close);
    }
  }

  /**
   * SIGTERM to each node: each exits 0, and none of {@code demoServers} (the killed node's too)
   * outlives them.
   */
  private static void stopLeavingNoDemoServer(
      List<JarProcess> nodes, List<ProcessHandle> demoServers) throws Exception {
    for (JarProcess node : nodes) {
      node.process().destroy(); // SIGTERM
    }
    for (JarProcess node : nodes) {
      assertEquals(0, node.awaitExit(), "exit status after SIGTERM; stderr:\n" + node.stderrText());
    }
    assertTrue(
        ChildProcesses.awaitExit(demoServers, Duration.ofSeconds(10)),
        "a demo server outlived its gateway: " + demoServers);
  }

  /** Until every entry of {@code values} is at least {@code least}, bounded by {@link #READY}. */
  private static void awaitEvery(AtomicLongArray values, long least, String when)
      throws InterruptedException {
    long deadline = System.nanoTime() + READY.toNanos();
    while (true) {
      int waiting = 0;
      for (int n = 0; n < values.length(); n++) {
        waiting += values.get(n) >= least ? 0 : 1;
      }
      if (waiting == 0) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(waiting + " sessions never answered " + when);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
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
