package dev.mcpsupervisor.http.bench;

import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.http.GatewayServer;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.upstream.DefaultConnectors;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Not a test: what the HTTP gateway adds to an echo call. Side by side in one run, the same raw
 * Streamable HTTP client load goes (a) through the gateway (in this JVM) to the fixture over stdio,
 * and (b) straight to the fixture serving Streamable HTTP. Prints p50 / p90 of sequential calls on
 * one session, and the throughput of 10 and 64 concurrent sessions (one thread each, calls back to
 * back); every figure is the median of several interleaved rounds.
 *
 * <pre>
 * mvn -o -q -B -pl http test-compile
 * mvn -o -q -B -pl http dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * java -cp http/target/test-classes:http/target/classes:$(cat /tmp/cp.txt) dev.mcpsupervisor.http.bench.GatewayBench \
 *     [sequentialCalls=2000] [callsPerSession=300] [rounds=3]
 * </pre>
 */
public final class GatewayBench {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final int[] CONCURRENT_SESSIONS = {10, 64};

  private GatewayBench() {}

  /** One Streamable HTTP endpoint and the raw client calls it. */
  private static final class Target {
    final String name;
    final URI uri;
    final HttpClient http;
    final AtomicInteger retries = new AtomicInteger();

    Target(String name, String uri, ExecutorService executor) {
      this.name = name;
      this.uri = URI.create(uri);
      // HTTP/1.1 keep-alive pool: each concurrent session thread holds its own connection while it
      // calls
      this.http =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(5))
              .executor(executor)
              .build();
    }

    HttpResponse<String> post(String sessionId, String body) throws Exception {
      return BenchPosts.post(
          http, uri, TIMEOUT, sessionId, ProtocolVersions.LATEST, body, retries, name);
    }

    String openSession() throws Exception {
      HttpResponse<String> init =
          post(
              null,
              "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\""
                  + ProtocolVersions.LATEST
                  + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}");
      String sessionId = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
      post(sessionId, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
      return sessionId;
    }

    void echo(String sessionId, int id, String message) throws Exception {
      String body =
          "{\"jsonrpc\":\"2.0\",\"id\":"
              + id
              + ",\"method\":\"tools/call\",\"params\":{\"name\":\""
              + FixtureTools.ECHO
              + "\",\"arguments\":{\"message\":\""
              + message
              + "\"}}}";
      String answer = post(sessionId, body).body();
      if (!answer.contains("\"text\":\"" + message + "\"")) {
        throw new IllegalStateException(name + ": wrong answer for " + message + ": " + answer);
      }
    }
  }

  public static void main(String[] args) throws Exception {
    int sequentialCalls = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
    int callsPerSession = args.length > 1 ? Integer.parseInt(args[1]) : 300;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    int maxSessions = Arrays.stream(CONCURRENT_SESSIONS).max().orElseThrow();
    ExecutorService clientThreads = Executors.newCachedThreadPool();
    ExecutorService sessionThreads = Executors.newFixedThreadPool(maxSessions);

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
            .idleTimeout(Duration.ofMinutes(5))
            .build();
    GatewayConfig gatewayConfig =
        GatewayConfig.builder()
            .host("127.0.0.1")
            .port(0)
            .maxBodyBytes(1024 * 1024)
            .sessionIdleTimeout(Duration.ofMinutes(30))
            .build();
    GatewayMetrics metrics = new GatewayMetrics();
    SessionSupervisor supervisor =
        SessionSupervisor.start(
            new SupervisorConfig(Map.of("fx", fixture), gatewayConfig),
            DefaultConnectors.create(),
            metrics,
            ConfigFactory.parseString("pekko.loglevel = WARNING\npekko.log-dead-letters = off")
                .withFallback(ConfigFactory.load()));
    GatewayServer server = null;
    FixtureProcess direct = FixtureProcess.startHttp();
    try {
      server =
          GatewayServer.start(supervisor, gatewayConfig, metrics)
              .toCompletableFuture()
              .get(60, TimeUnit.SECONDS);
      Target gateway =
          new Target(
              "gateway",
              "http://127.0.0.1:" + server.address().getPort() + "/servers/fx/mcp",
              clientThreads);
      Target straight = new Target("direct", direct.url(), clientThreads);
      List<Target> targets = List.of(gateway, straight);

      for (Target target : targets) {
        String session = target.openSession();
        for (int i = 0; i < 3_000; i++) {
          target.echo(session, i, "warm" + i);
        }
        throughput(
            target, maxSessions, callsPerSession, sessionThreads); // warms the concurrent path too
      }

      long[][] p50 = new long[2][rounds];
      long[][] p90 = new long[2][rounds];
      double[][][] rates = new double[2][CONCURRENT_SESSIONS.length][rounds];
      for (int round = 0; round < rounds; round++) {
        for (int t = 0; t < targets.size(); t++) {
          long[] nanos = sequential(targets.get(t), sequentialCalls);
          p50[t][round] = nanos[nanos.length / 2];
          p90[t][round] = nanos[(int) (nanos.length * 0.9)];
          for (int c = 0; c < CONCURRENT_SESSIONS.length; c++) {
            rates[t][c][round] =
                throughput(targets.get(t), CONCURRENT_SESSIONS[c], callsPerSession, sessionThreads);
          }
        }
      }

      System.out.printf(
          "%d sequential calls on one session; %d calls per concurrent session; median of %d rounds%n",
          sequentialCalls, callsPerSession, rounds);
      System.out.printf("%-8s %10s %10s", "target", "p50 µs", "p90 µs");
      for (int sessions : CONCURRENT_SESSIONS) {
        System.out.printf(" %14s", sessions + " sess call/s");
      }
      System.out.println();
      for (int t = 0; t < targets.size(); t++) {
        System.out.printf(
            "%-8s %10.0f %10.0f", targets.get(t).name, median(p50[t]) / 1e3, median(p90[t]) / 1e3);
        for (int c = 0; c < CONCURRENT_SESSIONS.length; c++) {
          System.out.printf(" %14.0f", median(rates[t][c]));
        }
        System.out.println();
      }
      System.out.printf(
          "gateway adds p50 %.0f µs, p90 %.0f µs",
          (median(p50[0]) - median(p50[1])) / 1e3, (median(p90[0]) - median(p90[1])) / 1e3);
      for (int c = 0; c < CONCURRENT_SESSIONS.length; c++) {
        System.out.printf(
            "; %d sessions: gateway/direct throughput %.2f",
            CONCURRENT_SESSIONS[c], median(rates[0][c]) / median(rates[1][c]));
      }
      System.out.println();
      System.out.printf(
          "resent after a closed connection: gateway %d, direct %d%n",
          gateway.retries.get(), straight.retries.get());
    } finally {
      if (server != null) {
        server.stop(Duration.ofSeconds(2)).toCompletableFuture().get(30, TimeUnit.SECONDS);
      }
      supervisor.close();
      direct.close();
      sessionThreads.shutdownNow();
      clientThreads.shutdownNow();
    }
  }

  private static long[] sequential(Target target, int calls) throws Exception {
    String session = target.openSession();
    long[] nanos = new long[calls];
    for (int i = 0; i < calls; i++) {
      long start = System.nanoTime();
      target.echo(session, i, "seq" + i);
      nanos[i] = System.nanoTime() - start;
    }
    Arrays.sort(nanos);
    return nanos;
  }

  /** Calls per second of {@code sessions} sessions calling back to back, each on its own thread. */
  private static double throughput(
      Target target, int sessions, int callsPerSession, ExecutorService threads) throws Exception {
    List<String> ids = new ArrayList<>();
    for (int s = 0; s < sessions; s++) {
      ids.add(target.openSession());
    }
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> running = new ArrayList<>();
    for (int s = 0; s < sessions; s++) {
      String session = ids.get(s);
      int caller = s;
      running.add(
          threads.submit(
              () -> {
                start.await();
                for (int i = 0; i < callsPerSession; i++) {
                  target.echo(session, i, "c" + caller + "-" + i);
                }
                return null;
              }));
    }
    long begin = System.nanoTime();
    start.countDown();
    for (Future<?> call : running) {
      call.get(5, TimeUnit.MINUTES);
    }
    return (double) sessions * callsPerSession / ((System.nanoTime() - begin) / 1e9);
  }

  private static double median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
