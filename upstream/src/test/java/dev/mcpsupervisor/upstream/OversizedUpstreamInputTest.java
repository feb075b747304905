package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamLimits;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server that sends more than {@code maxMessageBytes}: an endless answer costs the gateway the
 * limit, not its heap; the call fails with -32015 naming the limit; where the stream carries the
 * whole session (stdio stdout, the legacy SSE stream) the connection ends.
 */
class OversizedUpstreamInputTest {

  private static final int MIB = 1024 * 1024;
  private static final long TWO_GIB = 2L * 1024 * MIB;
  private static final UpstreamLimits ONE_MIB =
      new UpstreamLimits(
          MIB,
          UpstreamConnector.DEFAULT_LIMITS.httpTimeout(),
          UpstreamConnector.DEFAULT_LIMITS.sseRetryMin(),
          UpstreamConnector.DEFAULT_LIMITS.sseRetryMax());

  private final RecordingListener listener = new RecordingListener();
  private ScriptedHttpServer server;
  private UpstreamConnection connection;

  @AfterEach
  void stop() {
    if (connection != null) {
      Rpc.await(connection.close());
    }
    if (server != null) {
      server.close();
    }
  }

  @AfterAll
  static void noProcessOutlivesTheTests() {
    ChildProcesses.assertNoneAlive();
  }

  private UpstreamConnection connectHttp(UpstreamLimits limits) {
    ServerSpec spec =
        new ServerSpec.StreamableHttp(server.url("/mcp"), Map.of(), UpstreamProtocol.SESSION);
    connection = Rpc.await(new StreamableHttpConnector().connect(spec, limits, listener));
    return connection;
  }

  /** Writes {@code prefix}, then 'x' until {@code total} bytes or until the client hangs up. */
  private static long writeLazily(OutputStream out, String prefix, long total) {
    byte[] filler = new byte[64 * 1024];
    Arrays.fill(filler, (byte) 'x');
    long written = 0;
    try {
      out.write(prefix.getBytes(StandardCharsets.UTF_8));
      while (written < total) {
        int count = (int) Math.min(filler.length, total - written);
        out.write(filler, 0, count);
        written += count;
      }
      out.flush();
    } catch (IOException hungUp) {
      // the client stopped reading: what the test wants
    }
    return written;
  }

  private static void assertTooLarge(JsonRpcResponse answer, int limit) {
    assertTrue(answer.isError(), "an error answer: " + answer);
    assertEquals(JsonRpcErrorCodes.UPSTREAM_MESSAGE_TOO_LARGE, answer.error().code());
    assertTrue(
        answer.error().message().contains("maxMessageBytes (" + limit + " bytes)"),
        answer.error().message());
  }

  @Test
  void twoGigabyteJsonAnswerFailsItsCallWithoutFillingTheHeap() throws IOException {
    AtomicLong served = new AtomicLong();
    server =
        new ScriptedHttpServer(
            (request, exchange) -> {
              exchange.getResponseHeaders().add("Content-Type", "application/json");
              exchange.sendResponseHeaders(200, 0); // chunked: no length to refuse it by
              served.set(
                  writeLazily(
                      exchange.getResponseBody(),
                      "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"pad\":\"",
                      TWO_GIB));
            });
    UpstreamConnection connection = connectHttp(UpstreamConnector.DEFAULT_LIMITS);
    HeapPeak heap = HeapPeak.start();
    long start = System.nanoTime();

    Rpc.send(connection, Rpc.echo(1, "anything"));
    JsonRpcResponse answer = listener.awaitResponse(Rpc.id(1));

    long millis = (System.nanoTime() - start) / 1_000_000;
    long peakGrowth = heap.peakGrowthBytes();
    System.out.printf(
        "2 GiB JSON answer: failed after %d ms, heap peak growth %d MiB, server wrote %d MiB%n",
        millis, peakGrowth / MIB, served.get() / MIB);
    assertTooLarge(answer, UpstreamConnector.DEFAULT_LIMITS.maxMessageBytes());
    assertTrue(peakGrowth < 512L * MIB, "heap grew by " + peakGrowth / MIB + " MiB");
    assertFalse(listener.closed.isDone(), "the session goes on");
  }

  @Test
  void endlessSseLineFailsItsCallAndTheSessionGoesOn() throws IOException {
    server =
        new ScriptedHttpServer(
            (request, exchange) -> {
              if (request.body().contains("\"id\":1")) {
                // 64 MiB without a line end: far past the limit, bounded for the old code's sake
                writeLazily(
                    ScriptedHttpServer.startEventStream(exchange, "event: message\n"),
                    "data: ",
                    64L * MIB);
              } else {
                ScriptedHttpServer.respond(
                    exchange,
                    200,
                    "application/json",
                    "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"ok\":true}}");
              }
            });
    UpstreamConnection connection = connectHttp(ONE_MIB);

    Rpc.send(connection, Rpc.echo(1, "anything"));
    assertTooLarge(listener.awaitResponse(Rpc.id(1)), MIB);

    Rpc.send(connection, Rpc.echo(2, "next"));
    assertFalse(listener.awaitResponse(Rpc.id(2)).isError(), "the session goes on");
    assertFalse(listener.closed.isDone());
  }

  @Test
  void endlessLineOnTheLegacySseStreamEndsTheConnection() throws IOException {
    server =
        new ScriptedHttpServer(
            (request, exchange) -> {
              if (request.method().equals("GET")) {
                OutputStream out =
                    ScriptedHttpServer.startEventStream(
                        exchange, "event: endpoint\ndata: /messages\n\n");
                writeLazily(out, "data: ", 64L * MIB);
              } else {
                ScriptedHttpServer.respond(exchange, 202, null, "");
              }
            });
    ServerSpec spec = new ServerSpec.Sse(server.url("/sse"), Map.of());
    connection = Rpc.await(new SseConnector().connect(spec, ONE_MIB, listener));

    ConnectionClosed closed = listener.awaitClosed();

    assertEquals(ConnectionClosed.Kind.TRANSPORT_ERROR, closed.kind());
    assertTrue(closed.detail().contains("maxMessageBytes (" + MIB + " bytes)"), closed.detail());
  }

  @Test
  void endlessStdoutLineEndsTheConnectionAndTheProcess() {
    ServerSpec spec =
        new ServerSpec.Stdio(
            "sh", List.of("-c", "yes x | tr -d '\\n'"), Map.of(), null, UpstreamProtocol.SESSION);
    connection = Rpc.await(new StdioConnector().connect(spec, ONE_MIB, listener));
    long pid = connection.pid().getAsLong();

    ConnectionClosed closed = listener.awaitClosed();

    assertEquals(ConnectionClosed.Kind.TRANSPORT_ERROR, closed.kind());
    assertTrue(closed.detail().contains("maxMessageBytes (" + MIB + " bytes)"), closed.detail());
    Rpc.await(connection.close());
    assertFalse(ChildProcesses.isAlive(pid), "the server is ended with its connection");
  }

  /** The most heap in use since {@link #start}, over what was in use then. */
  private record HeapPeak(List<MemoryPoolMXBean> pools, long usedAtStart) {

    static HeapPeak start() {
      System.gc();
      List<MemoryPoolMXBean> pools =
          ManagementFactory.getMemoryPoolMXBeans().stream()
              .filter(pool -> pool.getType() == MemoryType.HEAP)
              .toList();
      pools.forEach(MemoryPoolMXBean::resetPeakUsage);
      long used = pools.stream().mapToLong(pool -> pool.getUsage().getUsed()).sum();
      return new HeapPeak(pools, used);
    }

    long peakGrowthBytes() {
      return pools.stream().mapToLong(pool -> pool.getPeakUsage().getUsed()).sum() - usedAtStart;
    }
  }
}
