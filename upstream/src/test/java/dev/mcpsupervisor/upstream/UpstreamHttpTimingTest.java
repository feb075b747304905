package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamLimits;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How long the gateway waits for an HTTP server: POST timeouts and the SSE retry clamp. */
class UpstreamHttpTimingTest {

  private static final String INITIALIZE_RESULT =
      "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\","
          + "\"capabilities\":{},\"serverInfo\":{\"name\":\"scripted\",\"version\":\"1\"}}}";

  /**
   * Long enough that a loaded machine still sends the headers of an answered POST within it (200 ms
   * failed once in a full build beside other builds: the first POST's headers were late).
   */
  private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(2);

  private final RecordingListener listener = new RecordingListener();
  private final CountDownLatch release = new CountDownLatch(1);
  private ScriptedHttpServer server;
  private UpstreamConnection connection;

  @AfterEach
  void stop() {
    release.countDown();
    if (connection != null) {
      Rpc.await(connection.close());
    }
    if (server != null) {
      server.close();
    }
  }

  private UpstreamConnection connect(UpstreamLimits limits) {
    ServerSpec spec =
        new ServerSpec.StreamableHttp(server.url("/mcp"), Map.of(), UpstreamProtocol.SESSION);
    connection = Rpc.await(new StreamableHttpConnector().connect(spec, limits, listener));
    return connection;
  }

  private static void answerInitialize(HttpExchange exchange) throws IOException {
    exchange.getResponseHeaders().add("Mcp-Session-Id", "s-1");
    ScriptedHttpServer.respond(exchange, 200, "application/json", INITIALIZE_RESULT);
  }

  @Test
  void postWhoseAnswerDoesNotComeFailsAfterHttpTimeoutAndTheSessionGoesOn() throws Exception {
    server =
        new ScriptedHttpServer(
            (request, exchange) -> {
              if (request.body().contains("\"id\":1")) {
                awaitRelease(); // never answers while the test runs
              }
              ScriptedHttpServer.respond(
                  exchange,
                  200,
                  "application/json",
                  "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"ok\":true}}");
            });
    UpstreamLimits limits =
        new UpstreamLimits(1024 * 1024, HTTP_TIMEOUT, Duration.ofSeconds(1), Duration.ofMinutes(1));
    UpstreamConnection connection = connect(limits);

    ExecutionException failed =
        assertThrows(
            ExecutionException.class,
            () ->
                connection
                    .send(Rpc.echo(1, "slow"))
                    .toCompletableFuture()
                    .get(RecordingListener.WAIT.toMillis(), TimeUnit.MILLISECONDS));

    assertTrue(failed.getCause().getMessage().contains("HttpTimeoutException"), failed.toString());
    Rpc.send(connection, Rpc.echo(2, "next"));
    assertFalse(listener.awaitResponse(Rpc.id(2)).isError(), "the session goes on");
    assertFalse(listener.closed.isDone());
  }

  @Test
  void httpTimeoutBoundsTheWaitForHeadersNotAStreamedAnswer() throws Exception {
    CountDownLatch answerLater = new CountDownLatch(1);
    server =
        new ScriptedHttpServer(
            (request, exchange) -> {
              if (request.body().contains("\"id\":2")) {
                awaitRelease(); // no headers: its POST times out
                return;
              }
              try (OutputStream out =
                  ScriptedHttpServer.startEventStream(exchange, ": streaming\n\n")) {
                awaitLatch(answerLater);
                out.write(
                    "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}\n\n"
                        .getBytes(StandardCharsets.UTF_8));
              }
            });
    UpstreamLimits limits =
        new UpstreamLimits(1024 * 1024, HTTP_TIMEOUT, Duration.ofSeconds(1), Duration.ofMinutes(1));
    UpstreamConnection connection = connect(limits);
    Rpc.send(connection, Rpc.echo(1, "long")); // its stream is open

    // a POST sent after it timed out: httpTimeout has passed for the open stream too
    assertThrows(
        ExecutionException.class,
        () ->
            connection
                .send(Rpc.echo(2, "silent"))
                .toCompletableFuture()
                .get(RecordingListener.WAIT.toMillis(), TimeUnit.MILLISECONDS));
    answerLater.countDown();

    assertFalse(listener.awaitResponse(Rpc.id(1)).isError(), "the streamed answer arrives");
    assertFalse(listener.closed.isDone());
  }

  private static void awaitLatch(CountDownLatch latch) {
    try {
      latch.await(RecordingListener.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void awaitRelease() {
    try {
      release.await(RecordingListener.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void sseRetryOfTheStandaloneStreamIsClampedBothWays() throws Exception {
    AtomicInteger streams = new AtomicInteger();
    server =
        new ScriptedHttpServer(
            (request, exchange) -> {
              switch (request.method()) {
                case "GET" -> {
                  // first asks to wait eleven days, then to hammer the server every millisecond
                  String retry = streams.getAndIncrement() == 0 ? "999999999" : "1";
                  ScriptedHttpServer.startEventStream(exchange, "retry: " + retry + "\n\n").close();
                }
                case "POST" -> {
                  if (request.body().contains("\"initialize\"")) {
                    answerInitialize(exchange);
                  } else {
                    ScriptedHttpServer.respond(exchange, 202, null, "");
                  }
                }
                default -> ScriptedHttpServer.respond(exchange, 200, null, "");
              }
            });
    UpstreamLimits limits =
        new UpstreamLimits(
            1024 * 1024, Duration.ofSeconds(60), Duration.ofMillis(300), Duration.ofMillis(600));
    Rpc.handshake(connect(limits), listener);

    List<Long> getNanos = new ArrayList<>();
    while (getNanos.size() < 4) {
      ScriptedHttpServer.Recorded request = server.next();
      if (request.method().equals("GET")) {
        getNanos.add(System.nanoTime());
      }
    }

    List<Long> gapsMillis = new ArrayList<>();
    for (int i = 1; i < getNanos.size(); i++) {
      gapsMillis.add((getNanos.get(i) - getNanos.get(i - 1)) / 1_000_000);
    }
    System.out.println("reconnection gaps (ms), retry 999999999 then 1: " + gapsMillis);
    // the first reconnect came at all (within the wait, not in eleven days); none came sooner than
    // sseRetryMin (timer slack allowed)
    assertEquals(3, gapsMillis.size());
    gapsMillis.forEach(gap -> assertTrue(gap >= 250, "reconnected after " + gapsMillis + " ms"));
  }
}
