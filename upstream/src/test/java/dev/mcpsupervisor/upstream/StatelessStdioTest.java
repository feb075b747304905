package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stdio server that speaks 2026-07-28 only (a shell script with canned answers) behind the stdio
 * connector: found out by protocol auto from its refusal of initialize, or named by the config.
 */
class StatelessStdioTest {

  /** Ids are the first member after "jsonrpc", as the codec writes them. */
  private static final String ID =
      "id=$(printf '%s\\n' \"$line\" | sed -n 's/^{\"jsonrpc\":\"2.0\",\"id\":\\([0-9]*\\).*/\\1/p')";

  private static final String REFUSE_INITIALIZE =
      "*'\"method\":\"initialize\"'*) printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32022,"
          + "\"message\":\"Unsupported protocol version\",\"data\":{\"supported\":[\"2026-07-28\"]}}}\\n' \"$id\";;";

  private static final String DISCOVER =
      "*'\"method\":\"server/discover\"'*) printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"resultType\":\"complete\","
          + "\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":{}},"
          + "\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"sh-modern\",\"version\":\"1\"}}}}\\n' \"$id\";;";

  private static final String TOOLS =
      "*'\"inputResponses\":{\"q\":{\"action\":\"accept\"}}'*'\"requestState\":\"st\"'*)"
          + " printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"resultType\":\"complete\","
          + "\"content\":[{\"type\":\"text\",\"text\":\"answered\"}]}}\\n' \"$id\";;"
          + " *'\"method\":\"tools/call\"'*) printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{"
          + "\"resultType\":\"input_required\",\"requestState\":\"st\",\"inputRequests\":{\"q\":"
          + "{\"method\":\"elicitation/create\",\"params\":{\"message\":\"?\"}}}}}\\n' \"$id\";;";

  private final StdioConnector connector = new StdioConnector(Duration.ofMillis(500));
  private final RecordingListener listener = new RecordingListener();
  private UpstreamConnection connection;

  @AfterEach
  void stop() {
    if (connection != null) {
      Rpc.await(connection.close());
    }
  }

  @AfterAll
  static void noProcessOutlivesTheTests() {
    ChildProcesses.assertNoneAlive();
  }

  private static ServerSpec server(UpstreamProtocol protocol, String... cases) {
    String script =
        "while IFS= read -r line; do "
            + ID
            + "; case \"$line\" in "
            + String.join(" ", cases)
            + " esac; done";
    return new ServerSpec.Stdio("sh", List.of("-c", script), Map.of(), null, protocol);
  }

  private JsonRpcResponse initialize(ServerSpec spec) {
    connection = Rpc.await(connector.connect(spec, listener));
    ObjectNode params = Rpc.initialize(0, "2025-11-25").params().deepCopy();
    params.putObject("capabilities").putObject("elicitation");
    connection.send(new JsonRpcRequest(Rpc.id(0), McpMethods.INITIALIZE, params));
    return listener.awaitResponse(Rpc.id(0));
  }

  private void callWithAnInputRound() {
    connection.send(Rpc.callTool(1, "ask", null));
    RecordingListener.Received received =
        listener.await(message -> message.message() instanceof JsonRpcRequest);
    JsonRpcRequest asked = (JsonRpcRequest) received.message();
    assertEquals(McpMethods.ELICITATION_CREATE, asked.method());
    assertTrue(
        Rpc.sameId(Rpc.id(1), received.relatedRequestId()),
        "asked on behalf of the session's call");
    connection.send(
        JsonRpcResponse.success(asked.id(), JsonRpcCodec.emptyObject().put("action", "accept")));
    assertEquals("answered", Rpc.text(listener.awaitResponse(Rpc.id(1))));
  }

  @Test
  void autoGoesStatelessOnTheSameProcessWhenInitializeIsRefusedFor2026() {
    JsonRpcResponse initialized =
        initialize(server(UpstreamProtocol.AUTO, REFUSE_INITIALIZE, DISCOVER, TOOLS));
    assertFalse(initialized.isError(), () -> "initialize: " + initialized.error());
    assertEquals("sh-modern", initialized.result().path("serverInfo").path("name").asText());
    assertTrue(connection.pid().isPresent(), "still the supervised process");
    connection.send(Rpc.initialized());
    callWithAnInputRound();
  }

  @Test
  void protocol2026SpeaksStatelessFromTheFirstMessage() {
    // no initialize case: a stateless-only config never sends one
    JsonRpcResponse initialized = initialize(server(UpstreamProtocol.STATELESS, DISCOVER, TOOLS));
    assertEquals("sh-modern", initialized.result().path("serverInfo").path("name").asText());
    callWithAnInputRound();
  }

  @Test
  void autoKeepsTheRefusalWhenDiscoverFailsToo() {
    String refuseEverything =
        "*) printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32602,\"message\":\"no way\"}}\\n' \"$id\";;";
    JsonRpcResponse initialized = initialize(server(UpstreamProtocol.AUTO, refuseEverything));
    assertTrue(initialized.isError());
    assertEquals("no way", initialized.error().message());
    assertFalse(listener.closed.isDone(), "the process stays, supervised as before");
  }

  @Test
  void theProcessExitReachesTheSessionOnceThroughTheAdapter() {
    String exitOnCall = "*'\"method\":\"tools/call\"'*) exit 3;;";
    initialize(server(UpstreamProtocol.AUTO, REFUSE_INITIALIZE, DISCOVER, exitOnCall));
    connection.send(Rpc.callTool(1, "die", null));
    listener.assertClosedOnceAs(ConnectionClosed.Kind.PROCESS_EXITED);
    assertTrue(listener.awaitClosed().detail().contains("exit code 3"));
  }
}
