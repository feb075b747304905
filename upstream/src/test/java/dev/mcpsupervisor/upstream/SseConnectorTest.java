package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureSseServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.upstream.RecordingListener.Received;
import dev.mcpsupervisor.upstream.ScriptedHttpServer.Recorded;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The legacy HTTP+SSE transport, against the fixture on the SDK's SSE server transport and scripted
 * servers.
 */
class SseConnectorTest {

  private final SseConnector connector = new SseConnector(Duration.ofMillis(500));
  private final RecordingListener listener = new RecordingListener();

  @AfterAll
  static void noProcessOutlivesTheTests() {
    ChildProcesses.assertNoneAlive();
  }

  private UpstreamConnection connect(URI url) {
    return Rpc.await(connector.connect(new ServerSpec.Sse(url, Map.of()), listener));
  }

  @Test
  void fixtureAnswersInitializeAndEchoOverLegacySse() {
    try (FixtureSseServer server = FixtureSseServer.start(0)) {
      UpstreamConnection connection = connect(URI.create(server.url()));
      try {
        Rpc.send(connection, Rpc.initialize(0, ProtocolVersions.V2024_11_05));
        JsonRpcResponse initialized = listener.awaitResponse(Rpc.id(0));
        assertEquals(
            FixtureTools.SERVER_NAME,
            initialized.result().path("serverInfo").path("name").asText());
        Rpc.send(connection, Rpc.initialized());

        Rpc.send(connection, Rpc.echo(1, "hello over sse"));
        Received answer = listener.await(r -> r.message() instanceof JsonRpcResponse);
        assertEquals("hello over sse", Rpc.text((JsonRpcResponse) answer.message()));
        assertNull(
            answer.relatedRequestId(), "legacy SSE cannot tell which request a message belongs to");
      } finally {
        Rpc.await(connection.close());
      }
      listener.assertClosedOnceAs(ConnectionClosed.Kind.CLOSED_BY_US);
    }
  }

  @Test
  void serverGoingAwayEndsTheConnection() {
    FixtureSseServer server = FixtureSseServer.start(0);
    UpstreamConnection connection;
    try {
      connection = connect(URI.create(server.url()));
    } finally {
      server.close();
    }

    listener.assertClosedOnceAs(ConnectionClosed.Kind.TRANSPORT_ERROR);
    assertThrows(
        ExecutionException.class,
        () -> connection.send(Rpc.echo(1, "x")).toCompletableFuture().get());
  }

  @Test
  void relativeEndpointIsResolvedAgainstTheStreamUrl() throws Exception {
    try (ScriptedHttpServer server =
        new ScriptedHttpServer(
            (request, exchange) -> {
              if (request.method().equals("GET")) {
                holdOpen(
                    ScriptedHttpServer.startEventStream(
                        exchange, "event: endpoint\ndata: messages?session=abc\n\n"));
              } else {
                ScriptedHttpServer.respond(exchange, 202, null, "");
              }
            })) {
      UpstreamConnection connection = connect(server.url("/base/sse"));
      try {
        Rpc.send(connection, Rpc.echo(1, "x"));
        server.next(); // the GET
        Recorded post = server.next();
        assertEquals("POST", post.method());
        assertEquals("/base/messages?session=abc", post.uri().toString());
        assertEquals("application/json", post.header("Content-Type"));
      } finally {
        Rpc.await(connection.close());
      }
    }
  }

  @Test
  void missingEndpointEventFailsTheConnectInTime() throws Exception {
    try (ScriptedHttpServer server =
        new ScriptedHttpServer(
            (request, exchange) ->
                holdOpen(ScriptedHttpServer.startEventStream(exchange, ": nothing to see\n\n")))) {
      ExecutionException failure =
          assertThrows(
              ExecutionException.class,
              () ->
                  connector
                      .connect(new ServerSpec.Sse(server.url("/sse"), Map.of()), listener)
                      .toCompletableFuture()
                      .get(5, TimeUnit.SECONDS));

      assertInstanceOf(IOException.class, failure.getCause());
      assertTrue(
          failure.getCause().getMessage().contains("no endpoint event within"),
          failure.getCause().getMessage());
      assertEquals(
          0, listener.closeCount.get(), "a connection that never opened is not reported closed");
    }
  }

  @Test
  void endpointOnAnotherOriginIsRefused() throws Exception {
    try (ScriptedHttpServer server =
        new ScriptedHttpServer(
            (request, exchange) ->
                holdOpen(
                    ScriptedHttpServer.startEventStream(
                        exchange, "event: endpoint\ndata: http://attacker.example/steal\n\n")))) {
      ExecutionException failure =
          assertThrows(
              ExecutionException.class,
              () ->
                  connector
                      .connect(new ServerSpec.Sse(server.url("/sse"), Map.of()), listener)
                      .toCompletableFuture()
                      .get(5, TimeUnit.SECONDS));

      assertTrue(
          failure.getCause().getMessage().contains("another origin"),
          failure.getCause().getMessage());
    }
  }

  @Test
  void nonStreamAnswerFailsTheConnect() throws Exception {
    try (ScriptedHttpServer server =
        new ScriptedHttpServer(
            (request, exchange) ->
                ScriptedHttpServer.respond(exchange, 401, "text/plain", "unauthorized"))) {
      ExecutionException failure =
          assertThrows(
              ExecutionException.class,
              () ->
                  connector
                      .connect(new ServerSpec.Sse(server.url("/sse"), Map.of()), listener)
                      .toCompletableFuture()
                      .get(5, TimeUnit.SECONDS));

      assertTrue(
          failure.getCause().getMessage().contains("HTTP 401"), failure.getCause().getMessage());
    }
  }

  /**
   * Keeps a scripted event stream open until the client goes away (the write then fails) or a bound
   * passes.
   */
  private static void holdOpen(OutputStream stream) throws IOException {
    CountDownLatch never = new CountDownLatch(1);
    try {
      for (int i = 0; i < 100; i++) {
        if (never.await(100, TimeUnit.MILLISECONDS)) {
          return;
        }
        stream.write(": keep-alive\n\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        stream.flush();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      try {
        stream.close();
      } catch (IOException gone) {
        // the client hung up
      }
    }
  }
}
