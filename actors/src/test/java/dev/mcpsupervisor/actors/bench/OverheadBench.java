package dev.mcpsupervisor.actors.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Not a test: the latency one echo call adds when it goes through the supervisor instead of
 * straight through the MCP Java SDK's own client, both over stdio to the same fixture (one process
 * each), in one run. Prints median / p90 / p99 of sequential calls and the throughput of concurrent
 * callers.
 *
 * <pre>
 * mvn -o -q -pl actors test-compile dependency:build-classpath -Dmdep.outputFile=cp.txt -Dmdep.includeScope=test
 * java -cp actors/target/test-classes:actors/target/classes:$(cat cp.txt) dev.mcpsupervisor.actors.bench.OverheadBench \
 *     [sequentialCalls=5000] [concurrentCallers=64] [concurrentCalls=20000]
 * </pre>
 */
public final class OverheadBench {

  private static final int WARM_UP_CALLS = 3_000;
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private OverheadBench() {}

  /** One way of making an echo call; returns the echoed text. */
  private interface EchoCaller {
    String echo(int caller, String message) throws Exception;
  }

  private record Result(String name, long[] sequentialNanos, double callsPerSecond) {
    long percentile(double p) {
      return sequentialNanos[
          (int) Math.min(sequentialNanos.length - 1, Math.floor(p * sequentialNanos.length))];
    }
  }

  public static void main(String[] args) throws Exception {
    int sequentialCalls = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
    int callers = args.length > 1 ? Integer.parseInt(args[1]) : 64;
    int concurrentCalls = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
    List<String> command = FixtureProcess.stdioCommand();

    Result direct;
    McpAsyncClient client =
        McpClient.async(
                new StdioClientTransport(
                    ServerParameters.builder(command.get(0))
                        .args(command.subList(1, command.size()))
                        .build(),
                    McpJsonDefaults.getMapper()))
            .requestTimeout(TIMEOUT)
            .build();
    // The SDK's stdio transport fails concurrent sends ("signaled serially"): concurrent callers
    // hand their sends to one thread and wait for the answers on their own, so that the SDK still
    // pipelines them.
    ExecutorService sender = Executors.newSingleThreadExecutor();
    try {
      client.initialize().block(TIMEOUT);
      EchoCaller sequential =
          (caller, message) -> text(client.callTool(echoRequest(message)).block(TIMEOUT));
      EchoCaller concurrent =
          (caller, message) ->
              text(
                  CompletableFuture.supplyAsync(
                          () -> client.callTool(echoRequest(message)).toFuture(), sender)
                      .thenCompose(answer -> answer)
                      .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
      direct =
          measure(
              "direct SDK client",
              sequential,
              concurrent,
              sequentialCalls,
              callers,
              concurrentCalls);
    } finally {
      sender.shutdownNow();
      client.closeGracefully().block(TIMEOUT);
      killDescendants();
    }

    Result supervised;
    ServerSpec spec =
        new ServerSpec.Stdio(command.get(0), command.subList(1, command.size()), Map.of(), null);
    ServerConfig server =
        ServerConfig.builder("fixture", spec)
            .isolation(Isolation.SHARED)
            .maxSessions(1)
            .maxInflightPerSession(10_000)
            .requestTimeout(TIMEOUT)
            .idleTimeout(Duration.ofMinutes(5))
            .interactiveTools( // a key with an interactive tool: the plain echo calls pass the
                // interactive check
                java.util.Set.of(FixtureTools.SAMPLE))
            .build();
    try (SessionSupervisor supervisor =
        SessionSupervisor.start(new SupervisorConfig(Map.of("fixture", server), null))) {
      EchoCaller echo =
          (caller, message) -> supervisedEcho(supervisor, "context-" + caller, message);
      supervised =
          measure("through the supervisor", echo, echo, sequentialCalls, callers, concurrentCalls);
    } finally {
      killDescendants();
    }

    print(direct);
    print(supervised);
    System.out.printf(
        "added latency: median %+.1f us, p90 %+.1f us; median ratio %.2f; throughput ratio %.2f%n",
        micros(supervised.percentile(0.5) - direct.percentile(0.5)),
        micros(supervised.percentile(0.9) - direct.percentile(0.9)),
        (double) supervised.percentile(0.5) / direct.percentile(0.5),
        supervised.callsPerSecond() / direct.callsPerSecond());
  }

  private static CallToolRequest echoRequest(String message) {
    return new CallToolRequest(FixtureTools.ECHO, Map.of("message", message));
  }

  private static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }

  private static String supervisedEcho(SessionSupervisor supervisor, String context, String message)
      throws Exception {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("name", FixtureTools.ECHO);
    params.putObject("arguments").put("message", message);
    JsonRpcResponse response =
        supervisor
            .request(context, "fixture", "tools/call", params, null)
            .toCompletableFuture()
            .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    if (response.isError()) {
      throw new IllegalStateException("error: " + response.error());
    }
    return response.result().path("content").path(0).path("text").asText();
  }

  private static Result measure(
      String name,
      EchoCaller caller,
      EchoCaller concurrentCaller,
      int sequentialCalls,
      int callers,
      int concurrentCalls)
      throws Exception {
    for (int i = 0; i < WARM_UP_CALLS; i++) {
      check(caller.echo(0, "warm-up-" + i), "warm-up-" + i);
    }
    runConcurrently(concurrentCaller, callers, WARM_UP_CALLS);
    long[] nanos = new long[sequentialCalls];
    for (int i = 0; i < sequentialCalls; i++) {
      String message = "sequential-" + i;
      long start = System.nanoTime();
      String echoed = caller.echo(0, message);
      nanos[i] = System.nanoTime() - start;
      check(echoed, message);
    }
    Arrays.sort(nanos);
    long start = System.nanoTime();
    runConcurrently(concurrentCaller, callers, concurrentCalls);
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Result(name, nanos, concurrentCalls / seconds);
  }

  private static void runConcurrently(EchoCaller caller, int callers, int calls) throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(callers);
    AtomicInteger next = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    try {
      Future<?>[] running = new Future<?>[callers];
      for (int c = 0; c < callers; c++) {
        int callerId = c;
        running[c] =
            threads.submit(
                () -> {
                  start.await();
                  for (int i = next.getAndIncrement(); i < calls; i = next.getAndIncrement()) {
                    String message = "concurrent-" + callerId + "-" + i;
                    check(caller.echo(callerId, message), message);
                  }
                  return null;
                });
      }
      start.countDown();
      for (Future<?> future : running) {
        future.get(5, TimeUnit.MINUTES);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  private static void check(String echoed, String expected) {
    if (!expected.equals(echoed)) {
      throw new IllegalStateException("wrong answer: " + echoed + " for " + expected);
    }
  }

  private static void print(Result result) {
    System.out.printf(
        "%-24s sequential n=%d: median %.1f us, p90 %.1f us, p99 %.1f us; concurrent: %.0f calls/s%n",
        result.name(),
        result.sequentialNanos().length,
        micros(result.percentile(0.5)),
        micros(result.percentile(0.9)),
        micros(result.percentile(0.99)),
        result.callsPerSecond());
  }

  private static double micros(long nanos) {
    return nanos / 1_000.0;
  }

  /**
   * The SDK's close sends SIGTERM only and may leave the process: nothing the bench started may
   * outlive it.
   */
  private static void killDescendants() {
    ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly);
  }
}
