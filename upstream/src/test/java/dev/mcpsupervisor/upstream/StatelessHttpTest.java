package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamLimits;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.upstream.ScriptedHttpServer.Recorded;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Streamable HTTP as MCP 2026-07-28 has it, against a scripted server: the headers every POST
 * carries, answers as JSON or SSE, failures that are the request's own, cancel as a disconnect, and
 * the probe of protocol auto.
 */
class StatelessHttpTest {

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

  private static final String DISCOVERED =
      "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"resultType\":\"complete\","
          + "\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":{}},"
          + "\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"modern\",\"version\":\"1\"}}}}";

  /** One tool whose region is mirrored into a header (SEP-2243), one that declares none. */
  private static final String LISTED =
      "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"resultType\":\"complete\",\"tools\":["
          + "{\"name\":\"weather\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
          + "\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},\"days\":{\"type\":\"integer\"}}}},"
          + "{\"name\":\"plain\",\"inputSchema\":{\"type\":\"object\"}}]}}";

  /**
   * A 2026-07-28 server: discover, tools/list, and tools/call answered on an SSE stream after a
   * progress.
   */
  private static void modern(Recorded request, HttpExchange exchange) throws IOException {
    JsonNode body = JsonRpcCodec.mapper().readTree(request.body());
    String id = body.path("id").toString();
    String method = body.path("method").asText();
    if (!"2026-07-28".equals(request.header("MCP-Protocol-Version"))) {
      ScriptedHttpServer.respond(
          exchange,
          400,
          "application/json",
          "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32022,\"message\":\"no\","
              + "\"data\":{\"supported\":[\"2026-07-28\"]}}}");
    } else if (method.equals(McpMethods.SERVER_DISCOVER)) {
      ScriptedHttpServer.respond(exchange, 200, "application/json", DISCOVERED.formatted(id));
    } else if (method.equals(McpMethods.TOOLS_LIST)) {
      ScriptedHttpServer.respond(exchange, 200, "application/json", LISTED.formatted(id));
    } else if (method.equals(McpMethods.TOOLS_CALL)) {
      String progress =
          "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}";
      String answer =
          "{\"jsonrpc\":\"2.0\",\"id\":"
              + id
              + ",\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}";
      try (OutputStream out =
          ScriptedHttpServer.startEventStream(
              exchange, "data: " + progress + "\n\ndata: " + answer + "\n\n")) {
        out.flush();
      }
    } else {
      ScriptedHttpServer.respond(
          exchange,
          404,
          "application/json",
          "{\"jsonrpc\":\"2.0\",\"id\":"
              + id
              + ",\"error\":{\"code\":-32601,\"message\":\"nope\"}}");
    }
  }

  private UpstreamConnection connect(UpstreamProtocol protocol) {
    ServerSpec spec =
        new ServerSpec.StreamableHttp(server.url("/mcp"), Map.of("X-Api-Key", "k"), protocol);
    connection = Rpc.await(connector.connect(spec, listener));
    return connection;
  }

  private JsonRpcResponse initialize(UpstreamConnection connection) {
    connection.send(Rpc.initialize(0, "2025-11-25"));
    JsonRpcResponse answer = listener.awaitResponse(Rpc.id(0));
    connection.send(Rpc.initialized());
    return answer;
  }

  @Test
  void everyPostCarriesTheHeadersThatMirrorItsBodyAndNoSession() throws Exception {
    server = new ScriptedHttpServer(StatelessHttpTest::modern);
    UpstreamConnection connection = connect(UpstreamProtocol.STATELESS);
    assertEquals(
        "modern", initialize(connection).result().path("serverInfo").path("name").asText());
    Recorded discover = server.next();
    assertEquals(McpMethods.SERVER_DISCOVER, discover.header("Mcp-Method"));
    assertEquals("2026-07-28", discover.header("MCP-Protocol-Version"));
    assertEquals("k", discover.header("X-Api-Key"));
    assertNull(discover.header("Mcp-Session-Id"));
    assertNull(discover.header("Mcp-Name"));

    connection.send(Rpc.callTool(1, "naïve tool", null));
    JsonRpcResponse answer = listener.awaitResponse(Rpc.id(1));
    assertEquals("done", Rpc.text(answer));
    assertFalse(answer.result().has("resultType"));
    Recorded call = server.next();
    assertEquals(McpMethods.TOOLS_CALL, call.header("Mcp-Method"));
    assertEquals("=?base64?bmHDr3ZlIHRvb2w=?=", call.header("Mcp-Name"));
    assertTrue(
        listener.passedOver.stream()
            .anyMatch(received -> Rpc.sameId(Rpc.id(1), received.relatedRequestId())),
        "the progress is related to the session's request: " + listener.passedOver);

    JsonRpcRequest read =
        new JsonRpcRequest(
            Rpc.id(2),
            McpMethods.RESOURCES_READ,
            JsonRpcCodec.emptyObject().put("uri", "file:///a b"));
    connection.send(read);
    assertEquals(-32601, listener.awaitResponse(Rpc.id(2)).error().code());
    assertEquals("file:///a b", server.next().header("Mcp-Name"));
    assertEquals(
        0,
        server.requests.size(),
        "initialized was not POSTed, nor anything else: " + server.requests);
  }

  @Test
  void aResponseStreamThatEndsWithoutTheAnswerFailsItsCallOnly() throws Exception {
    server =
        new ScriptedHttpServer(
            (request, exchange) -> {
              if (!request.body().contains("\"cut\"")) {
                modern(request, exchange);
                return;
              }
              try (OutputStream out =
                  ScriptedHttpServer.startEventStream(
                      exchange,
                      "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
                          + "\"params\":{\"progressToken\":1,\"progress\":1}}\n\n"
                          + "data: not JSON-RPC\n\n")) {
                out.flush();
              }
            });
    UpstreamConnection connection = connect(UpstreamProtocol.STATELESS);
    initialize(connection);

    CompletableFuture<Void> sent =
        connection.send(Rpc.callTool(1, "cut", null)).toCompletableFuture();
    JsonRpcResponse cut = listener.awaitResponse(Rpc.id(1));
    assertEquals(JsonRpcErrorCodes.INTERNAL_ERROR, cut.error().code());
    assertNotNull(BadAnswers.problemOf(cut), cut.toString());
    Rpc.await(sent); // the send succeeds: the call is answered, the connection is fine

    connection.send(Rpc.callTool(2, "plain", null));
    assertEquals("done", Rpc.text(listener.awaitResponse(Rpc.id(2))));
    assertFalse(listener.closed.isDone(), "the connection goes on");
  }

  @Test
  void aCallWhoseAnswerIsOverMaxMessageBytesFailsAloneWithItsOwnCode() throws Exception {
    int limit = 1024 * 1024;
    server =
        new ScriptedHttpServer(
            (request, exchange) -> {
              if (!request.body().contains("\"huge\"")) {
                modern(request, exchange);
                return;
              }
              exchange.getResponseHeaders().add("Content-Type", "application/json");
              exchange.sendResponseHeaders(200, 0);
              byte[] filler = new byte[64 * 1024];
              Arrays.fill(filler, (byte) 'x');
              OutputStream out = exchange.getResponseBody();
              try {
                out.write("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"pad\":\"".getBytes());
                for (int i = 0; i < 64; i++) { // 4 MiB, four times the limit
                  out.write(filler);
                }
              } catch (IOException hungUp) {
                // the client stopped reading
              }
            });
    ServerSpec spec =
        new ServerSpec.StreamableHttp(server.url("/mcp"), Map.of(), UpstreamProtocol.STATELESS);
    UpstreamLimits limits =
        new UpstreamLimits(
            limit, Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofMinutes(1));
    connection = Rpc.await(connector.connect(spec, limits, listener));
    initialize(connection);

    connection.send(Rpc.callTool(1, "huge", null));
    JsonRpcResponse tooLarge = listener.awaitResponse(Rpc.id(1));

    assertEquals(JsonRpcErrorCodes.UPSTREAM_MESSAGE_TOO_LARGE, tooLarge.error().code());
    assertTrue(tooLarge.error().message().contains("maxMessageBytes (1048576 bytes)"));
    connection.send(Rpc.callTool(2, "plain", null));
    assertEquals("done", Rpc.text(listener.awaitResponse(Rpc.id(2))));
  }

  @Test
  void aListedToolsHeaderParametersAreMirroredIntoItsCalls() throws Exception {
    server = new ScriptedHttpServer(StatelessHttpTest::modern);
    UpstreamConnection connection = connect(UpstreamProtocol.STATELESS);
    initialize(connection);
    server.next(); // discover
    ObjectNode arguments = JsonRpcCodec.emptyObject().put("region", "Zürich").put("days", 3);

    connection.send(Rpc.callTool(1, "weather", arguments));
    listener.awaitResponse(Rpc.id(1));
    assertNull(server.next().header("Mcp-Param-Region"), "not listed yet: nothing known of it");

    connection.send(new JsonRpcRequest(Rpc.id(2), McpMethods.TOOLS_LIST, null));
    listener.awaitResponse(Rpc.id(2));
    server.next();
    connection.send(Rpc.callTool(3, "weather", arguments));
    listener.awaitResponse(Rpc.id(3));
    Recorded call = server.next();
    assertEquals("=?base64?WsO8cmljaA==?=", call.header("Mcp-Param-Region"));
    assertNull(call.header("Mcp-Param-Days"), "days declares no header");
    connection.send(Rpc.callTool(4, "plain", arguments));
    listener.awaitResponse(Rpc.id(4));
    assertNull(server.next().header("Mcp-Param-Region"));
  }

  @Test
  void anHttpErrorWithoutAnAnswerFailsOnlyThatRequest() throws Exception {
    server =
        new ScriptedHttpServer(
            (request, exchange) -> {
              if (request.body().contains("tools/list")) {
                ScriptedHttpServer.respond(exchange, 502, "text/plain", "bad gateway");
              } else {
                modern(request, exchange);
              }
            });
    UpstreamConnection connection = connect(UpstreamProtocol.STATELESS);
    initialize(connection);
    CompletionStage<Void> sent =
        connection.send(new JsonRpcRequest(Rpc.id(1), McpMethods.TOOLS_LIST, null));
    Throwable failure = sent.toCompletableFuture().handle((ok, error) -> error).join();
    assertInstanceOf(IOException.class, Failures.unwrap(failure));
    assertTrue(failure.getMessage().contains("HTTP 502"), failure.getMessage());

    connection.send(Rpc.callTool(2, "echo", null));
    assertEquals("done", Rpc.text(listener.awaitResponse(Rpc.id(2))));
    assertFalse(listener.closed.isDone(), "the connection lives on");
  }

  @Test
  void aCancelClosesTheRequestsStreamAndIsNotPosted() throws Exception {
    CountDownLatch disconnected = new CountDownLatch(1);
    CountDownLatch streaming = new CountDownLatch(1);
    server =
        new ScriptedHttpServer(
            (request, exchange) -> {
              if (request.body().contains("\"slow\"")) {
                OutputStream out = ScriptedHttpServer.startEventStream(exchange, ": open\n\n");
                streaming.countDown();
                try {
                  for (int beat = 0; beat < 200; beat++) { // bounded: 20 s of keep-alives
                    out.write(": beat\n\n".getBytes());
                    out.flush();
                    Thread.sleep(100);
                  }
                } catch (IOException closedByTheClient) {
                  disconnected.countDown();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              } else {
                modern(request, exchange);
              }
            });
    UpstreamConnection connection = connect(UpstreamProtocol.STATELESS);
    initialize(connection);
    server.next(); // discover
    CompletionStage<Void> sent = connection.send(Rpc.callTool(1, "slow", null));
    assertTrue(streaming.await(20, TimeUnit.SECONDS));
    connection.send(StatelessAdapterTest.cancel(Rpc.id(1)));
    Rpc.await(sent);
    assertTrue(disconnected.await(20, TimeUnit.SECONDS), "the server saw the stream close");
    server.next(); // the slow call
    connection.send(Rpc.callTool(2, "echo", null));
    listener.awaitResponse(Rpc.id(2));
    assertTrue(server.next().body().contains("tools/call"), "no notifications/cancelled POST");
  }

  @Test
  void anUnreachableServerEndsTheConnection() throws Exception {
    server = new ScriptedHttpServer(StatelessHttpTest::modern);
    URI url = server.url("/mcp");
    server.close();
    connection =
        Rpc.await(
            connector.connect(
                new ServerSpec.StreamableHttp(url, Map.of(), UpstreamProtocol.STATELESS),
                listener));
    CompletableFuture<Void> sent =
        connection.send(Rpc.initialize(0, "2025-11-25")).toCompletableFuture();
    listener.assertClosedOnceAs(ConnectionClosed.Kind.TRANSPORT_ERROR);
    assertTrue(sent.handle((ok, error) -> error != null).join());
  }

  @Test
  void autoProbesDiscoverFirstAndStaysStatelessWhenItIsAnswered() throws Exception {
    server = new ScriptedHttpServer(StatelessHttpTest::modern);
    UpstreamConnection connection = connect(UpstreamProtocol.AUTO);
    assertEquals(
        "modern", initialize(connection).result().path("serverInfo").path("name").asText());
    connection.send(Rpc.callTool(1, "echo", null));
    assertEquals("done", Rpc.text(listener.awaitResponse(Rpc.id(1))));
    assertEquals(McpMethods.SERVER_DISCOVER, server.next().header("Mcp-Method"));
    assertEquals(McpMethods.TOOLS_CALL, server.next().header("Mcp-Method"));
  }

  @Test
  void autoFallsBackToInitializeWhenASessionEraServerRefusesDiscover() throws Exception {
    server =
        new ScriptedHttpServer(
            (request, exchange) -> {
              if (request.body().contains(McpMethods.SERVER_DISCOVER)) {
                // what session-era servers say to a POST without a session
                ScriptedHttpServer.respond(
                    exchange,
                    400,
                    "application/json",
                    "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,"
                        + "\"message\":\"Bad Request: No valid session ID provided\"}}");
              } else if (request.body().contains("\"initialize\"")) {
                exchange.getResponseHeaders().add("Mcp-Session-Id", "s-1");
                ScriptedHttpServer.respond(
                    exchange,
                    200,
                    "application/json",
                    "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-11-25\","
                        + "\"capabilities\":{},\"serverInfo\":{\"name\":\"old\",\"version\":\"1\"}}}");
              } else if (request.method().equals("GET")) {
                ScriptedHttpServer.respond(exchange, 405, null, "");
              } else {
                ScriptedHttpServer.respond(exchange, 202, null, "");
              }
            });
    UpstreamConnection connection = connect(UpstreamProtocol.AUTO);
    assertEquals("old", initialize(connection).result().path("serverInfo").path("name").asText());
    assertEquals(McpMethods.SERVER_DISCOVER, server.next().header("Mcp-Method"));
    Recorded initialize = server.next();
    assertTrue(initialize.body().contains("\"initialize\""));
    assertNull(initialize.header("Mcp-Method"), "the session era's wire from here on");
    Recorded initialized = server.next();
    assertEquals("s-1", initialized.header("Mcp-Session-Id"));
    assertFalse(listener.closed.isDone(), "the probe's connection ended without a word");
  }
}
