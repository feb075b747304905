package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.app.demo.DemoConfig;
import dev.mcpsupervisor.app.demo.DemoServer;
import dev.mcpsupervisor.app.runtime.ChildProcesses;
import dev.mcpsupervisor.http.access.SessionIds;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
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

  /**
   * A CI bound on a kill -9's recovery with {@code stable-after = 3s}: failure detection (3-5 s),
   * the resolver's 3 s, a gossip round, the adopters' record lookups, on a loaded machine.
   */
  private static final Duration KILL_RECOVERY_BOUND = Duration.ofSeconds(30);

  /**
   * How long a rolling redeploy's node may take to listen: at load average 35-40 on 2 cores, beside
   * other builds, one of three starting at once did not within 120 s.
   */
  private static final Duration ROLLING_START = Duration.ofSeconds(240);

  private static final int ROLLING_SESSIONS = 30;

  /**
   * Longer than the gateway's own deadline for an exchange nobody answers (its longest request
   * timeout and 30 s, 90 s here): the gateway's answer, not the client's timeout, says what
   * happened to a call.
   */
  private static final Duration ROLLING_CALL_TIMEOUT = Duration.ofSeconds(120);

  private static final int ROLLING_STATELESS_CALLERS = 6;

  /** Each node's drain deadline: three times the slowest call seen on a loaded 2-core machine. */
  private static final Duration ROLLING_DRAIN = Duration.ofSeconds(30);

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
            Descendants.running(node.process().toHandle(), DemoServer.class.getName()));
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
   * through the survivors with no new initialize, within {@link #KILL_RECOVERY_BOUND} (how long it
   * took is printed: docs/benchmarks.md quotes it). The split-brain resolver's {@code stable-after}
   * is 3 s here (20 s by default).
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
            Descendants.running(node.process().toHandle(), DemoServer.class.getName()));
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
          Duration.ofNanos(recovered).compareTo(KILL_RECOVERY_BOUND) < 0,
          "every session answers again within "
              + KILL_RECOVERY_BOUND
              + " of the kill (about 11 s here): "
              + Duration.ofNanos(recovered));
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
   * A rolling redeploy under load, as an operator does one: three nodes, sessions initialized on
   * each, a steady load of both eras spread over the nodes whose {@code /readyz} answers 200 (a
   * load balancer's health check, every 100 ms; one that answers slower than 2 s keeps its last
   * verdict); each node in turn gets SIGTERM during the load, exits, starts again (the first and
   * the last on their old ports, the second on new ones) found through Cluster Bootstrap's config
   * discovery (no seed nodes), and rejoins. No call fails, none is cut, none answered wrong, no
   * session initializes again, no process is left. What each restart cost (calls, p99) is printed
   * for docs/benchmarks.md.
   */
  @Test
  @Timeout(600)
  void aRollingRedeployUnderLoadFailsNoCall(@TempDir Path dir) throws Exception {
    List<JarProcess> processes = new ArrayList<>();
    ExecutorService callers =
        Executors.newFixedThreadPool(ROLLING_SESSIONS + ROLLING_STATELESS_CALLERS);
    Balancer balancer = new Balancer();
    // each node's DEBUG log of the desk and the sessions' registry, kept when a call fails
    Path logs =
        Path.of(
            System.getProperty("basedir", "."),
            "target",
            "cluster-jar-it",
            "rolling-" + System.currentTimeMillis());
    Files.createDirectories(logs);
    try {
      int[] httpPorts = {freePort(), freePort(), freePort()};
      int[] arteryPorts = {freePort(), freePort(), freePort()};
      int[] managementPorts = {freePort(), freePort(), freePort()};
      // every node's contact points: the first three management endpoints, as a fixed list of
      // addresses would be written once; a node back on new ports is not in it, and needs not be
      List<Integer> contactPoints = Arrays.stream(managementPorts).boxed().toList();
      JarProcess[] nodes = new JarProcess[3];
      for (int i = 0; i < 3; i++) {
        nodes[i] =
            rollingNode(
                dir,
                logs,
                "node" + i,
                httpPorts[i],
                arteryPorts[i],
                managementPorts[i],
                contactPoints);
        processes.add(nodes[i]);
      }
      for (int i = 0; i < 3; i++) {
        balancer.set(
            i,
            URI.create(
                nodes[i].awaitListening(ROLLING_START).replace("/mcp", "/servers/demo/mcp")));
        awaitReady(balancer.node(i).resolve("/readyz"));
      }
      balancer.start();
      System.out.println( // a failure names the node it went through by its URI
          "rolling-redeploy: nodes "
              + balancer.node(0)
              + " "
              + balancer.node(1)
              + " "
              + balancer.node(2));

      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      RollingLoad load = new RollingLoad(http, balancer);
      for (int n = 0; n < ROLLING_SESSIONS; n++) {
        load.sessions.add(McpHttpSession.open(http, balancer.node(n % 3)).sessionId());
      }
      load.start(callers);
      load.awaitEach(3, "before the redeploy");

      List<String> restarts = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        int calls = load.ok.get();
        long started = System.nanoTime();
        load.window(started);
        ProcessHandle node = nodes[i].process().toHandle();
        List<ProcessHandle> demoServers = Descendants.running(node, DemoServer.class.getName());
        nodes[i].process().destroy(); // SIGTERM, under the load
        assertEquals(
            0,
            nodes[i].awaitExit(ROLLING_DRAIN.plus(JarProcess.EXIT_TIMEOUT)),
            "exit status; stderr:\n" + nodes[i].stderrText());
        assertTrue(
            ChildProcesses.awaitExit(demoServers, Duration.ofSeconds(10)),
            "a demo server outlived its gateway: " + demoServers);
        long exited = System.nanoTime();
        if (i == 1) { // the second comes back on new ports, the others on their old ones
          httpPorts[i] = freePort();
          arteryPorts[i] = freePort();
          managementPorts[i] = freePort();
        }
        nodes[i] =
            rollingNode(
                dir,
                logs,
                "node" + i + "-again",
                httpPorts[i],
                arteryPorts[i],
                managementPorts[i],
                contactPoints);
        processes.add(nodes[i]);
        URI again =
            URI.create(nodes[i].awaitListening(ROLLING_START).replace("/mcp", "/servers/demo/mcp"));
        awaitReady(again.resolve("/readyz"));
        long ready = System.nanoTime();
        balancer.set(i, again);
        load.awaitEach(load.leastNow() + 2, "after node " + i + " came back");
        RollingLoad.Window window = load.window(System.nanoTime());
        restarts.add(
            String.format(
                "node %d (%s ports, %s): SIGTERM to exit %.1f s, to ready again %.1f s; calls"
                    + " answered %d, failed %d, p99 %d ms, slowest %d ms",
                i,
                i == 1 ? "new" : "old",
                again,
                (exited - started) / 1e9,
                (ready - started) / 1e9,
                load.ok.get() - calls,
                window.failed(),
                window.p99Millis(),
                window.maxMillis()));
      }
      load.stop();
      System.out.println("rolling-redeploy: " + String.join("; ", restarts));
      System.out.println(
          "rolling-redeploy: "
              + load.ok.get()
              + " calls answered, "
              + load.resent.get()
              + " resent by the balancer (refused before anything was done), failures "
              + load.failures.size()
              + ", wrong "
              + load.wrong.size());

      if (!load.failures.isEmpty()) { // what the nodes saw meanwhile
        processes.forEach(
            process ->
                process
                    .stderrText()
                    .lines()
                    .filter(line -> line.contains("WARN") || line.contains("ERROR"))
                    .forEach(line -> System.out.println("rolling-redeploy node log: " + line)));
        printLostSessionsLines(logs, load.failures);
      } else {
        deleteTree(logs);
      }
      assertEquals(List.of(), List.copyOf(load.failures), "no call fails");
      assertEquals(List.of(), List.copyOf(load.wrong), "every answer is the call's own");
      assertEquals(ROLLING_SESSIONS, load.sessions.size(), "no initialize after the first");

      List<ProcessHandle> demoServers = new ArrayList<>();
      for (JarProcess node : nodes) {
        demoServers.addAll(
            Descendants.running(node.process().toHandle(), DemoServer.class.getName()));
      }
      stopLeavingNoDemoServer(List.of(nodes), demoServers);
    } finally {
      balancer.stop();
      callers.shutdownNow();
      processes.forEach(JarProcess::close);
    }
  }

  /**
   * A node that finds the others through Cluster Bootstrap's {@code config} discovery, no seed
   * nodes: its management endpoint on {@code management}, the contact points' on {@code
   * contactPoints}.
   */
  private static JarProcess rollingNode(
      Path dir,
      Path logs,
      String name,
      int httpPort,
      int arteryPort,
      int management,
      List<Integer> contactPoints) {
    Map<String, Object> discovery =
        Map.of(
            "method",
            "config",
            "managementPort",
            management,
            "requiredContactPoints",
            contactPoints.size(),
            "endpoints",
            contactPoints.stream().map(port -> "127.0.0.1:" + port).toList());
    // at load average 44 on 2 cores the nodes' heartbeats came 2.5-6.8 s apart: with Pekko's 3 s
    // the others took a node only starved for unreachable, and its sessions' requests waited
    // the drain deadline bounds a call the stopping node took: with three nodes, their demo servers
    // and the callers on 2 cores (load average ~13), the slowest call while a restarted node warms
    // up took 7-10 s (the restart lines' "slowest"), and the default 10 s cut one off in a CI run
    return JarProcess.startWithJvmOptions(
        List.of(
            JarProcess.warmupCalls(0),
            "-Dmcp-supervisor.application.drainDeadline=" + ROLLING_DRAIN.toSeconds() + "s",
            "-Dmcp-supervisor.cluster-pekko.pekko.cluster.failure-detector"
                + ".acceptable-heartbeat-pause=20s",
            "-Dlogback.configurationFile=" + testResource("logback-cluster-it.xml"),
            "-Dmcp-supervisor.log.file=" + logs.resolve(name + ".log")),
        "--config",
        config(dir.resolve(name + ".json"), httpPort, arteryPort, "discovery", discovery)
            .toString());
  }

  /**
   * What a load balancer does in front of the nodes: it sends to the nodes whose {@code /readyz}
   * answered 200 at its last check (every 100 ms), in turn; a request refused before anything was
   * done (no connection, or 503 {@code shutting_down}) it sends to another node, and takes the node
   * out until its next check.
   */
  private static final class Balancer {
    private final AtomicReferenceArray<URI> nodes = new AtomicReferenceArray<>(3);
    private final AtomicReferenceArray<Boolean> ready = new AtomicReferenceArray<>(3);
    private final AtomicLong turn = new AtomicLong();
    private final ScheduledExecutorService checks = Executors.newSingleThreadScheduledExecutor();
    private final HttpClient http =
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    void set(int i, URI node) {
      nodes.set(i, node);
      ready.set(i, true);
    }

    URI node(int i) {
      return nodes.get(i);
    }

    void start() {
      checks.scheduleWithFixedDelay(this::check, 0, 100, TimeUnit.MILLISECONDS);
    }

    void stop() {
      checks.shutdownNow();
    }

    private void check() {
      for (int i = 0; i < 3; i++) {
        URI node = nodes.get(i);
        Boolean up;
        try {
          up =
              http.send(
                          HttpRequest.newBuilder(node.resolve("/readyz"))
                              .timeout(Duration.ofSeconds(2))
                              .build(),
                          HttpResponse.BodyHandlers.discarding())
                      .statusCode()
                  == 200;
        } catch (HttpTimeoutException e) {
          up = null; // a slow answer is no verdict (a loaded machine): the last one stands
        } catch (IOException e) {
          up = false;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        if (up != null && nodes.get(i) == node) {
          ready.set(i, up);
        }
      }
    }

    /** The next ready node, waiting for one (bounded); null when none is. */
    URI pick() {
      long deadline = System.nanoTime() + READY.toNanos();
      while (System.nanoTime() < deadline) {
        for (int tries = 0; tries < 3; tries++) {
          int i = (int) Math.floorMod(turn.getAndIncrement(), 3L);
          if (ready.get(i)) {
            return nodes.get(i);
          }
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
      }
      return null;
    }

    void takeOut(URI node) {
      for (int i = 0; i < 3; i++) {
        if (node.equals(nodes.get(i))) {
          ready.set(i, false);
        }
      }
    }
  }

  /**
   * Session loops (each session's {@code echo} calls) and stateless callers (2026-07-28 {@code
   * echo} calls), every call through the {@link Balancer}, its payload its own.
   */
  private static final class RollingLoad {
    final HttpClient http;
    final Balancer balancer;
    final List<String> sessions = new ArrayList<>();
    final AtomicBoolean running = new AtomicBoolean(true);
    final AtomicInteger ok = new AtomicInteger();
    final AtomicInteger resent = new AtomicInteger();
    final Queue<String> failures = new ConcurrentLinkedQueue<>();
    final Queue<String> wrong = new ConcurrentLinkedQueue<>();
    AtomicIntegerArray okBySession;
    final List<CompletableFuture<Void>> loops = new ArrayList<>();

    /** Each answered or failed call: end (nanoTime), latency (ns), whether it failed. */
    final Queue<long[]> outcomes = new ConcurrentLinkedQueue<>();

    long windowStart;

    record Window(int calls, int failed, long p99Millis, long maxMillis) {}

    RollingLoad(HttpClient http, Balancer balancer) {
      this.http = http;
      this.balancer = balancer;
    }

    void start(ExecutorService callers) {
      okBySession = new AtomicIntegerArray(sessions.size());
      for (int n = 0; n < sessions.size(); n++) {
        int session = n;
        loops.add(CompletableFuture.runAsync(() -> loop("s" + session, session), callers));
      }
      for (int n = 0; n < ROLLING_STATELESS_CALLERS; n++) {
        int caller = n;
        loops.add(CompletableFuture.runAsync(() -> loop("c" + caller, -1), callers));
      }
    }

    private void loop(String who, int session) {
      for (long call = 0; running.get(); call++) {
        String payload = who + "-" + call;
        String sessionId = session < 0 ? null : sessions.get(session);
        Instant sent = Instant.now();
        long started = System.nanoTime();
        boolean failed = true;
        try {
          Answer answered = call(sessionId, payload, call);
          JsonNode answer = answered.json();
          if (answer.has("error")) {
            failures.add(lost(payload, sessionId, sent, "via " + answered.node() + ": " + answer));
          } else if (!payload.equals(
              answer.path("result").path("content").path(0).path("text").asText())) {
            wrong.add(payload + ": " + answer);
          } else {
            failed = false;
            ok.incrementAndGet();
            if (session >= 0) {
              okBySession.incrementAndGet(session);
            }
          }
        } catch (RuntimeException e) {
          failures.add(lost(payload, sessionId, sent, e.toString()));
        }
        long ended = System.nanoTime();
        outcomes.add(new long[] {ended, ended - started, failed ? 1 : 0});
      }
    }

    /**
     * What a failed call was, for the nodes' logs: its session as they show it, when it was sent
     * and when it ended (UTC), and what ended it.
     */
    private static String lost(String payload, String sessionId, Instant sent, String what) {
      return String.format(
          "%s (session %s, sent %s, ended %s): %s",
          payload,
          sessionId == null ? "none" : SessionIds.redact(sessionId),
          sent,
          Instant.now(),
          what);
    }

    /** A call's JSON-RPC answer and the node that gave it. */
    record Answer(URI node, JsonNode json) {}

    /** One call through the balancer: the JSON-RPC answer; resent when refused untouched. */
    private Answer call(String sessionId, String payload, long id) {
      for (int attempt = 0; ; attempt++) {
        URI node = balancer.pick();
        if (node == null || attempt > 20) {
          throw new IllegalStateException("no node ready for " + payload);
        }
        HttpResponse<String> response;
        try {
          response = http.send(request(node, sessionId, payload, id), BodyHandlers.ofString());
        } catch (ConnectException e) { // nothing was sent
          balancer.takeOut(node);
          resent.incrementAndGet();
          continue;
        } catch (IOException e) { // what cut it (a timeout is one too) says where to look
          throw new UncheckedIOException("cut: " + payload + " via " + node + ": " + e, e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
        if (response.statusCode() == 503 && response.body().contains("shutting_down")) {
          balancer.takeOut(node); // refused before anything was done
          resent.incrementAndGet();
          continue;
        }
        if (response.statusCode() != 200) {
          throw new IllegalStateException(
              payload + " via " + node + ": " + response.statusCode() + " " + response.body());
        }
        return new Answer(node, McpHttpSession.responseTo(id, response));
      }
    }

    private static HttpRequest request(URI node, String sessionId, String payload, long id) {
      ObjectNode params = JSON.createObjectNode().put("name", "echo");
      params.putObject("arguments").put("message", payload);
      String version = sessionId == null ? "2026-07-28" : McpHttpSession.PROTOCOL_VERSION;
      if (sessionId == null) {
        ObjectNode meta = params.putObject("_meta");
        meta.put("io.modelcontextprotocol/protocolVersion", version);
        meta.putObject("io.modelcontextprotocol/clientInfo")
            .put("name", "rolling-redeploy")
            .put("version", "1");
        meta.putObject("io.modelcontextprotocol/clientCapabilities");
      }
      ObjectNode body =
          JSON.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", "tools/call");
      body.set("params", params);
      HttpRequest.Builder request =
          HttpRequest.newBuilder(node)
              .timeout(ROLLING_CALL_TIMEOUT)
              .header("Content-Type", "application/json")
              .header("Accept", "application/json, text/event-stream")
              .header("MCP-Protocol-Version", version)
              .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
      if (sessionId == null) {
        request.header("Mcp-Method", "tools/call").header("Mcp-Name", "echo");
      } else {
        request.header("Mcp-Session-Id", sessionId);
      }
      return request.build();
    }

    /** The fewest calls any session has had answered so far. */
    int leastNow() {
      int least = Integer.MAX_VALUE;
      for (int n = 0; n < okBySession.length(); n++) {
        least = Math.min(least, okBySession.get(n));
      }
      return least;
    }

    void awaitEach(int calls, String when) throws InterruptedException {
      long deadline = System.nanoTime() + READY.toNanos();
      while (leastNow() < calls) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError(
              "every session answers "
                  + when
                  + "; the slowest had "
                  + leastNow()
                  + " of "
                  + calls
                  + "; failures: "
                  + failures);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
      }
    }

    /** The calls that ended since the last window, and a new window from {@code now}. */
    Window window(long now) {
      List<Long> latencies = new ArrayList<>();
      int failed = 0;
      for (long[] outcome : outcomes) {
        if (outcome[0] >= windowStart && outcome[0] < now) {
          latencies.add(outcome[1]);
          failed += (int) outcome[2];
        }
      }
      windowStart = now;
      Collections.sort(latencies);
      long p99 =
          latencies.isEmpty()
              ? 0
              : latencies.get(Math.min(latencies.size() - 1, (int) (latencies.size() * 0.99)));
      long max = latencies.isEmpty() ? 0 : latencies.get(latencies.size() - 1);
      return new Window(
          latencies.size(),
          failed,
          TimeUnit.NANOSECONDS.toMillis(p99),
          TimeUnit.NANOSECONDS.toMillis(max));
    }

    void stop() throws Exception {
      running.set(false);
      CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
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
    return config(file, 0, artery, "seedNodes", List.of("127.0.0.1:" + seed));
  }

  /**
   * A node's config on HTTP port {@code port} (0: any), finding the others by {@code how} ({@code
   * seedNodes} or {@code discovery}) set to {@code found}.
   */
  private static Path config(Path file, int port, int artery, String how, Object found) {
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
            port,
            "cluster",
            Map.of("host", "127.0.0.1", "port", artery, how, found, "secret", SECRET)));
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

  /** A test resource's file (test-classes). */
  private static Path testResource(String name) {
    try {
      return Path.of(ClusterJarIT.class.getResource("/" + name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Where the nodes' DEBUG logs are kept, and their lines about the sessions of the failed calls.
   */
  private static void printLostSessionsLines(Path logs, Collection<String> failures)
      throws IOException {
    System.out.println("rolling-redeploy: the nodes' DEBUG logs are kept in " + logs);
    Set<String> sessions = new TreeSet<>();
    for (String failure : failures) {
      Matcher session = Pattern.compile("\\(session ([^,]+),").matcher(failure);
      if (session.find() && !session.group(1).equals("none")) {
        sessions.add(session.group(1).replace("…", ""));
      }
    }
    try (Stream<Path> files = Files.list(logs)) {
      for (Path file : files.sorted().toList()) {
        for (String line : Files.readAllLines(file)) {
          if (sessions.stream().anyMatch(line::contains)) {
            System.out.println("rolling-redeploy " + file.getFileName() + ": " + line);
          }
        }
      }
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
