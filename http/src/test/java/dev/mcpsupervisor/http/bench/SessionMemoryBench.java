package dev.mcpsupervisor.http.bench;

import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.http.GatewayServer;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.SessionLimits;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.upstream.DefaultConnectors;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.ObjectName;

/**
 * Not a test: what an idle downstream session costs. The gateway (in this JVM) serves one shared
 * upstream, the fixture over stdio; N sessions each make a 2025-06-18 {@code initialize} and {@code
 * notifications/initialized} over Streamable HTTP (a few keep-alive connections carry them all: a
 * session is an id, not a connection), then sit idle. Prints the heap after a full GC before and
 * after, divided by N, and the class histogram of the difference (what a session is made of).
 *
 * <pre>
 * mvn -o -q -B -pl protocol,upstream,fixture-server,actors,http test-compile
 * mvn -o -q -B -pl http dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * java -Xmx2g -cp http/target/test-classes:http/target/classes:$(cat /tmp/cp.txt) \
 *     dev.mcpsupervisor.http.bench.SessionMemoryBench [sessions=10000] [connections=8] [histogramRows=25]
 * </pre>
 */
public final class SessionMemoryBench {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final AtomicInteger RESENT = new AtomicInteger();

  private SessionMemoryBench() {}

  public static void main(String[] args) throws Exception {
    int sessions = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int connections = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    int histogramRows = args.length > 2 ? Integer.parseInt(args[2]) : 25;

    List<String> command = FixtureProcess.stdioCommand();
    ServerConfig fixture =
        ServerConfig.builder(
                "fx",
                new ServerSpec.Stdio(
                    command.get(0), command.subList(1, command.size()), Map.of(), null))
            .isolation(Isolation.SHARED)
            .maxSessions(4)
            .maxInflightPerSession(64)
            .requestTimeout(TIMEOUT)
            .idleTimeout(Duration.ofHours(1))
            .build();
    SessionLimits defaults = SessionLimits.defaults();
    GatewayConfig gatewayConfig =
        GatewayConfig.builder()
            .host("127.0.0.1")
            .port(0)
            .maxBodyBytes(1024 * 1024)
            .sessionIdleTimeout(Duration.ofHours(1))
            .sessionLimits(
                new SessionLimits(
                    sessions + 1_000,
                    sessions + 1_000,
                    defaults.maxInflightPerDownstreamSession(),
                    defaults.maxInflightPerIdentity(),
                    defaults.maxBatchLength()))
            .build();
    GatewayMetrics metrics = new GatewayMetrics();
    SessionSupervisor supervisor =
        SessionSupervisor.start(
            new SupervisorConfig(Map.of("fx", fixture), gatewayConfig),
            DefaultConnectors.create(),
            metrics,
            ConfigFactory.parseString("pekko.loglevel = WARNING\npekko.log-dead-letters = off")
                .withFallback(ConfigFactory.load()));
    ExecutorService clients = Executors.newFixedThreadPool(connections);
    GatewayServer server = null;
    try {
      server =
          GatewayServer.start(supervisor, gatewayConfig, metrics)
              .toCompletableFuture()
              .get(60, TimeUnit.SECONDS);
      URI endpoint =
          URI.create("http://127.0.0.1:" + server.address().getPort() + "/servers/fx/mcp");
      HttpClient http =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(5))
              .build();

      // warm-up (kept open, part of the baseline): the upstream starts, the classes load, the JIT
      // compiles, one-offs are paid
      openSessions(http, endpoint, 500, connections, clients);
      long before = heapAfterGc();
      Map<String, long[]> histogramBefore = histogram();

      long start = System.nanoTime();
      openSessions(http, endpoint, sessions, connections, clients);
      long openMillis = (System.nanoTime() - start) / 1_000_000;
      long after = heapAfterGc();
      Map<String, long[]> histogramAfter = histogram();

      System.out.printf(
          "%d sessions opened in %d ms; heap after full GC: %.1f MB before, %.1f MB after;"
              + " %d bytes per session; %d requests resent after a closed connection%n",
          sessions,
          openMillis,
          before / 1e6,
          after / 1e6,
          (after - before) / sessions,
          RESENT.get());
      printHistogramDifference(histogramBefore, histogramAfter, sessions, histogramRows);
    } finally {
      if (server != null) {
        server.stop(Duration.ofSeconds(2)).toCompletableFuture().get(120, TimeUnit.SECONDS);
      }
      supervisor.close();
      clients.shutdownNow();
    }
  }

  /** Opens {@code count} sessions, {@code connections} at a time; fails on the first refusal. */
  private static void openSessions(
      HttpClient http, URI endpoint, int count, int connections, ExecutorService threads)
      throws Exception {
    AtomicInteger next = new AtomicInteger();
    List<Future<?>> workers = new ArrayList<>();
    for (int w = 0; w < connections; w++) {
      workers.add(
          threads.submit(
              () -> {
                while (next.getAndIncrement() < count) {
                  openSession(http, endpoint);
                }
                return null;
              }));
    }
    for (Future<?> worker : workers) {
      worker.get(30, TimeUnit.MINUTES);
    }
  }

  private static void openSession(HttpClient http, URI endpoint) throws Exception {
    HttpResponse<String> init =
        post(
            http,
            endpoint,
            null,
            "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\""
                + ProtocolVersions.V2025_06_18
                + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"memory-bench\",\"version\":\"1\"}}}");
    String sessionId = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    post(
        http,
        endpoint,
        sessionId,
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  }

  private static HttpResponse<String> post(
      HttpClient http, URI endpoint, String sessionId, String body) throws Exception {
    return BenchPosts.post(
        http, endpoint, TIMEOUT, sessionId, ProtocolVersions.V2025_06_18, body, RESENT, "gateway");
  }

  /** Heap used after full GCs, until it stops shrinking. */
  private static long heapAfterGc() throws InterruptedException {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(200); // lets reference processing and finalizers settle between collections
      long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      if (now >= used) {
        return now;
      }
      used = now;
    }
    return used;
  }

  /** Class name → {instances, bytes}, from the HotSpot class histogram (after a full GC). */
  private static Map<String, long[]> histogram() throws Exception {
    String text =
        (String)
            ManagementFactory.getPlatformMBeanServer()
                .invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "gcClassHistogram",
                    new Object[] {new String[0]},
                    new String[] {String[].class.getName()});
    Map<String, long[]> classes = new HashMap<>();
    for (String line : text.split("\n")) {
      String[] columns = line.trim().split("\\s+");
      if (columns.length >= 4 && columns[0].endsWith(":")) {
        classes.put(
            columns[3], new long[] {Long.parseLong(columns[1]), Long.parseLong(columns[2])});
      }
    }
    return classes;
  }

  private static void printHistogramDifference(
      Map<String, long[]> before, Map<String, long[]> after, int sessions, int rows) {
    List<Map.Entry<String, long[]>> grown = new ArrayList<>();
    after.forEach(
        (name, now) -> {
          long[] was = before.getOrDefault(name, new long[2]);
          grown.add(Map.entry(name, new long[] {now[0] - was[0], now[1] - was[1]}));
        });
    grown.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
    long total = grown.stream().mapToLong(entry -> entry.getValue()[1]).sum();
    System.out.printf(
        "class histogram difference: %d bytes per session in all%n%12s %12s %10s  %s%n",
        total / sessions, "per session", "bytes/sess", "instances", "class");
    grown.stream()
        .limit(rows)
        .forEach(
            entry ->
                System.out.printf(
                    "%12.2f %12.1f %10d  %s%n",
                    (double) entry.getValue()[0] / sessions,
                    (double) entry.getValue()[1] / sessions,
                    entry.getValue()[0],
                    entry.getKey()));
  }
}
