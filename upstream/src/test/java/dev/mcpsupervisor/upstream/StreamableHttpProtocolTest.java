package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.upstream.RecordingListener.Received;
import dev.mcpsupervisor.upstream.ScriptedHttpServer.Recorded;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Streamable HTTP wire details, against a scripted server that records what the connector
 * sends.
 */
class StreamableHttpProtocolTest {

  private static final String INITIALIZE_RESULT =
      "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
          + "\"serverInfo\":{\"name\":\"scripted\",\"version\":\"1\"}}}";

  private final StreamableHttpConnector connector = new StreamableHttpConnector();
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

  private UpstreamConnection connect() {
    // the session era's wire, without the server/discover probe of protocol auto
    ServerSpec spec =
        new ServerSpec.StreamableHttp(
            server.url("/mcp"), Map.of("X-Api-Key", "secret-key"), UpstreamProtocol.SESSION);
    connection = Rpc.await(connector.connect(spec, listener));
    return connection;
  }

  /**
   * Answers initialize with session "s-1", notifications with 202, GET with 405, DELETE with 200.
   */
  private static void basics(Recorded request, com.sun.net.httpserver.HttpExchange exchange)
      throws IOException {
    if (request.method().equals("GET")) {
      ScriptedHttpServer.respond(exchange, 405, null, "");
    } else if (request.method().equals("DELETE")) {
      ScriptedHttpServer.respond(exchange, 200, null, "");
    } else if (request.body().contains("\"initialize\"")) {
      exchange.getResponseHeaders().add("Mcp-Session-Id", "s-1");
      ScriptedHttpServer.respond(exchange, 200, "application/json", INITIALIZE_RESULT);
    } else {
      ScriptedHttpServer.respond(exchange, 202, null, "");
    }
  }

  @Test
  void sessionHeadersFollowTheInitializeExchange() throws Exception {
    server = new ScriptedHttpServer(StreamableHttpProtocolTest::basics);
    UpstreamConnection connection = connect();

    Rpc.handshake(connection, listener);
    Recorded initialize = server.next();
    Recorded initialized = server.next();
    Recorded get = server.next();
    Rpc.await(connection.close());
    Recorded delete = server.next();

    assertEquals("POST", initialize.method());
    assertEquals("application/json, text/event-stream", initialize.header("Accept"));
    assertEquals("application/json", initialize.header("Content-Type"));
    assertEquals("secret-key", initialize.header("X-Api-Key"));
    assertNull(initialize.header("Mcp-Session-Id"));
    assertNull(initialize.header("MCP-Protocol-Version"));

    assertTrue(initialized.body().contains(McpMethods.NOTIFICATION_INITIALIZED));
    assertEquals("s-1", initialized.header("Mcp-Session-Id"));
    assertEquals("2025-06-18", initialized.header("MCP-Protocol-Version"));
    assertEquals("secret-key", initialized.header("X-Api-Key"));

    assertEquals(
        "GET", get.method(), "the standalone stream opens after notifications/initialized");
    assertEquals("text/event-stream", get.header("Accept"));
    assertEquals("s-1", get.header("Mcp-Session-Id"));

    assertEquals("DELETE", delete.method());
    assertEquals("s-1", delete.header("Mcp-Session-Id"));
    listener.assertClosedOnceAs(ConnectionClosed.Kind.CLOSED_BY_US);
  }

  @Test
  void errorStatusWithAJsonRpcBodyIsTheAnswerToTheRequest() throws Exception {
    server =
        new ScriptedHttpServer(
            (request, exchange) ->
                ScriptedHttpServer.respond(
                    exchange,
                    400,
                    "application/json",
                    "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Bad Request: no session\"}}"));
    UpstreamConnection connection = connect();

    Rpc.send(connection, Rpc.echo(5, "x"));
    JsonRpcResponse answer = listener.awaitResponse(Rpc.id(5));

    assertTrue(answer.isError());
    assertEquals("Bad Request: no session", answer.error().message());
    assertFalse(listener.closed.isDone());
  }

  @Test
  void errorStatusWithoutAJsonRpcBodyFailsTheSendOnly() throws Exception {
    server =
        new ScriptedHttpServer(
            (request, exchange) ->
                ScriptedHttpServer.respond(exchange, 500, "text/plain", "upstream exploded"));
    UpstreamConnection connection = connect();

    ExecutionException failure =
        assertThrows(
            ExecutionException.class,
            () -> connection.send(Rpc.echo(5, "x")).toCompletableFuture().get());

    assertInstanceOf(IOException.class, failure.getCause());
    assertTrue(
        failure.getCause().getMessage().contains("HTTP 500: upstream exploded"),
        failure.getCause().getMessage());
    assertFalse(listener.closed.isDone(), "one failed POST does not end the session");
  }

  @Test
  void sseAnswerDeliversEveryEventWithTheRequestIdAndSkipsJunk() throws Exception {
    server =
        new ScriptedHttpServer(
            (request, exchange) -> {
              try (OutputStream stream =
                  ScriptedHttpServer.startEventStream(
                      exchange,
                      ": a comment\n\n"
                          + "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\n"
                          + "data: \"params\":{\"level\":\"info\",\"data\":\"two data lines\"}}\n\n"
                          + "data: not json at all\n\n"
                          + "id: 9\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"ok\":true}}\n\n")) {
                stream.flush();
              }
            });
    UpstreamConnection connection = connect();

    Rpc.send(connection, Rpc.echo(3, "x"));
    JsonRpcResponse answer = listener.awaitResponse(Rpc.id(3));

    assertTrue(answer.result().path("ok").asBoolean());
    assertEquals(
        1,
        listener.passedOver.size(),
        () -> "only the log notification before it: " + listener.passedOver);
    Received log = listener.passedOver.get(0);
    assertEquals(
        "two data lines", ((JsonRpcNotification) log.message()).params().path("data").asText());
    assertTrue(Rpc.sameId(Rpc.id(3), log.relatedRequestId()));
    assertFalse(listener.closed.isDone(), "a response stream that ends cleanly is fine");
  }

  @Test
  void standaloneStreamReconnectsWithLastEventId() throws Exception {
    AtomicInteger gets = new AtomicInteger();
    server =
        new ScriptedHttpServer(
            (request, exchange) -> {
              if (request.method().equals("GET") && gets.incrementAndGet() == 1) {
                try (OutputStream stream =
                    ScriptedHttpServer.startEventStream(
                        exchange,
                        "id: e-41\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"server-1\",\"method\":\"roots/list\"}\n\n")) {
                  stream.flush(); // then the stream ends: the connector must come back
                }
              } else {
                basics(request, exchange);
              }
            });
    UpstreamConnection connection = connect();
    Rpc.handshake(connection, listener);

    Received serverRequest = listener.await(r -> r.message() instanceof JsonRpcRequest);
    assertEquals(McpMethods.ROOTS_LIST, ((JsonRpcRequest) serverRequest.message()).method());
    assertNull(serverRequest.relatedRequestId());
    server.next(); // initialize
    server.next(); // notifications/initialized
    Recorded firstGet = server.next();
    Recorded secondGet = server.next();

    assertNull(firstGet.header("Last-Event-ID"));
    assertEquals("GET", secondGet.method());
    assertEquals("e-41", secondGet.header("Last-Event-ID"));
    assertFalse(listener.closed.isDone());
  }

  @Test
  void badConfiguredHeaderFailsTheConnect() throws Exception {
    server = new ScriptedHttpServer(StreamableHttpProtocolTest::basics);
    ServerSpec spec =
        new ServerSpec.StreamableHttp(
            server.url("/mcp"), Map.of("Host", "elsewhere.example"), UpstreamProtocol.SESSION);

    ExecutionException failure =
        assertThrows(
            ExecutionException.class,
            () -> connector.connect(spec, listener).toCompletableFuture().get());

    assertTrue(
        failure.getCause().getMessage().contains("header \"Host\""),
        failure.getCause().getMessage());
  }

  @Test
  void anotherTransportIsRefused() {
    ServerSpec stdio = new ServerSpec.Stdio("cat", List.of(), Map.of(), null);

    ExecutionException failure =
        assertThrows(
            ExecutionException.class,
            () -> connector.connect(stdio, listener).toCompletableFuture().get());

    assertInstanceOf(IllegalArgumentException.class, failure.getCause());
  }
}
