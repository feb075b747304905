package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureHttpServer;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.upstream.RecordingListener.Received;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Against the fixture served over Streamable HTTP in this JVM (the SDK's server transport on
 * Tomcat).
 */
class StreamableHttpConnectorTest {

  private final StreamableHttpConnector connector = new StreamableHttpConnector();
  private final RecordingListener listener = new RecordingListener();
  private FixtureHttpServer server;
  private UpstreamConnection connection;

  @BeforeEach
  void startFixture() {
    server = FixtureServer.startHttp(0);
  }

  @AfterEach
  void stopFixture() {
    if (connection != null) {
      Rpc.await(connection.close());
    }
    server.close();
  }

  @AfterAll
  static void noProcessOutlivesTheTests() {
    ChildProcesses.assertNoneAlive();
  }

  private UpstreamConnection connect(String url) {
    return connect(url, UpstreamProtocol.SESSION);
  }

  private UpstreamConnection connect(String url, UpstreamProtocol protocol) {
    ServerSpec spec =
        new ServerSpec.StreamableHttp(URI.create(url), Map.of("X-Api-Key", "secret-key"), protocol);
    connection = Rpc.await(connector.connect(spec, listener));
    return connection;
  }

  @Test
  void protocolAutoServesTheFixtureWhicheverEraItSpeaks() {
    UpstreamConnection connection = connect(server.url(), UpstreamProtocol.AUTO);
    JsonRpcResponse initialized = Rpc.handshake(connection, listener);
    assertEquals(
        FixtureTools.SERVER_NAME, initialized.result().path("serverInfo").path("name").asText());

    Rpc.send(connection, Rpc.echo(1, "hello, whichever era"));
    assertEquals("hello, whichever era", Rpc.text(listener.awaitResponse(Rpc.id(1))));
  }

  @Test
  void initializeCapturesTheSessionIdAndEchoWorks() {
    UpstreamConnection connection = connect(server.url());
    JsonRpcResponse initialized = Rpc.handshake(connection, listener);
    assertEquals(
        FixtureTools.SERVER_NAME, initialized.result().path("serverInfo").path("name").asText());
    assertNotNull(
        ((StreamableHttpConnection) connection).sessionId(),
        "session id from the initialize answer");

    Rpc.send(connection, Rpc.echo(1, "hello over http"));
    Received answer = listener.await(r -> r.message() instanceof JsonRpcResponse);
    assertEquals("hello over http", Rpc.text((JsonRpcResponse) answer.message()));
    assertTrue(Rpc.sameId(Rpc.id(1), answer.relatedRequestId()), "related to the POSTed request");
  }

  @Test
  void progressStreamsOverSseWithTheRelatedRequestId() {
    UpstreamConnection connection = connect(server.url());
    Rpc.handshake(connection, listener);
    ObjectNode arguments = JsonRpcCodec.emptyObject().put("steps", 3);
    JsonRpcRequest call = Rpc.callTool(7, FixtureTools.PROGRESS, arguments);
    ObjectNode params = (ObjectNode) call.params();
    params.putObject("_meta").put("progressToken", "token-7");

    Rpc.send(connection, call);
    JsonRpcResponse answer = listener.awaitResponse(Rpc.id(7));

    assertEquals("done 3", Rpc.text(answer));
    List<Received> progress =
        listener.passedOver.stream()
            .filter(
                r ->
                    r.message() instanceof JsonRpcNotification n
                        && n.method().equals(McpMethods.NOTIFICATION_PROGRESS))
            .toList();
    assertEquals(3, progress.size(), () -> "progress notifications among " + listener.passedOver);
    for (int step = 1; step <= 3; step++) {
      Received received = progress.get(step - 1);
      JsonRpcNotification notification = (JsonRpcNotification) received.message();
      assertEquals("token-7", notification.params().path("progressToken").asText());
      assertEquals(step, notification.params().path("progress").asInt());
      assertTrue(
          Rpc.sameId(Rpc.id(7), received.relatedRequestId()),
          "progress carries the request it belongs to");
    }
  }

  @Test
  void restartedServerAnswersSessionNotFound() throws Exception {
    UpstreamConnection connection = connect(server.url());
    // initialize only: no standalone stream, whose reconnects would race the restart
    Rpc.send(connection, Rpc.initialize(0, ProtocolVersions.LATEST));
    listener.awaitResponse(Rpc.id(0));
    int port = server.port();
    server.close();
    server = FixtureServer.startHttp(port);

    ExecutionException failure =
        assertThrows(
            ExecutionException.class,
            () -> connection.send(Rpc.echo(1, "anyone?")).toCompletableFuture().get());

    assertInstanceOf(IOException.class, failure.getCause());
    listener.assertClosedOnceAs(ConnectionClosed.Kind.SESSION_NOT_FOUND);
  }

  @Test
  void standaloneStreamDeliversListChanged() {
    UpstreamConnection connection = connect(server.url());
    Rpc.handshake(connection, listener);

    // The SDK server sends the GET stream's headers only with its first event, so the client cannot
    // see when the server registered the stream; a notification sent before that is dropped.
    // Trigger until one arrives (bounded).
    Predicate<Received> listChanged =
        r ->
            r.message() instanceof JsonRpcNotification n
                && n.method().equals(McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED)
                && r.relatedRequestId() == null;
    Optional<Received> changed = Optional.empty();
    for (int attempt = 1; attempt <= 10 && changed.isEmpty(); attempt++) {
      Rpc.send(connection, Rpc.callTool(attempt, FixtureTools.TRIGGER_LIST_CHANGED, null));
      assertEquals("changed", Rpc.text(listener.awaitResponse(Rpc.id(attempt))));
      // it may have come before the answer (passed over while waiting for it) or come after
      changed =
          listener.passedOver.stream()
              .filter(listChanged)
              .findFirst()
              .or(() -> listener.awaitWithin(listChanged, Duration.ofSeconds(1)));
    }

    assertTrue(
        changed.isPresent(),
        () -> "no list_changed on the standalone stream; got " + listener.passedOver);
  }

  @Test
  void closeDeletesTheSession() throws Exception {
    StreamableHttpConnection connection = (StreamableHttpConnection) connect(server.url());
    JsonRpcResponse initialized = Rpc.handshake(connection, listener);
    String sessionId = connection.sessionId();

    Rpc.await(connection.close());

    listener.assertClosedOnceAs(ConnectionClosed.Kind.CLOSED_BY_US);
    HttpRequest ping =
        HttpRequest.newBuilder(URI.create(server.url()))
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("Mcp-Session-Id", sessionId)
            .header("MCP-Protocol-Version", initialized.result().path("protocolVersion").asText())
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"))
            .build();
    HttpResponse<String> answer =
        HttpClient.newHttpClient().send(ping, HttpResponse.BodyHandlers.ofString());
    assertEquals(404, answer.statusCode(), "the server no longer knows the session");
  }

  @Test
  void refusedConnectionFailsTheSendAndEndsTheConnection() throws Exception {
    String url = server.url();
    server.close();
    UpstreamConnection connection = connect(url);

    ExecutionException failure =
        assertThrows(
            ExecutionException.class,
            () ->
                connection
                    .send(Rpc.initialize(0, ProtocolVersions.LATEST))
                    .toCompletableFuture()
                    .get());

    assertInstanceOf(IOException.class, failure.getCause());
    listener.assertClosedOnceAs(ConnectionClosed.Kind.TRANSPORT_ERROR);
    assertFalse(listener.closed.get().detail().contains("secret-key"));
  }
}
