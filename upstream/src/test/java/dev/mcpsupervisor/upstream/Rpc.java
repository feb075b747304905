package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/** Raw MCP messages for connector tests: the connectors move JSON-RPC, so the tests speak it. */
final class Rpc {

  private Rpc() {}

  static JsonNode id(long value) {
    return LongNode.valueOf(value);
  }

  static boolean sameId(JsonNode a, JsonNode b) {
    return a.isNumber() && b.isNumber()
        ? a.decimalValue().compareTo(b.decimalValue()) == 0
        : a.equals(b);
  }

  static JsonRpcRequest initialize(long id, String protocolVersion) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("protocolVersion", protocolVersion);
    params.putObject("capabilities");
    params.putObject("clientInfo").put("name", "connector-test").put("version", "1");
    return new JsonRpcRequest(id(id), McpMethods.INITIALIZE, params);
  }

  static JsonRpcNotification initialized() {
    return new JsonRpcNotification(McpMethods.NOTIFICATION_INITIALIZED, null);
  }

  static JsonRpcRequest callTool(long id, String tool, ObjectNode arguments) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("name", tool);
    params.set("arguments", arguments == null ? JsonRpcCodec.emptyObject() : arguments);
    return new JsonRpcRequest(id(id), McpMethods.TOOLS_CALL, params);
  }

  static JsonRpcRequest echo(long id, String message) {
    ObjectNode arguments = JsonRpcCodec.emptyObject();
    arguments.put("message", message);
    return callTool(id, "echo", arguments);
  }

  /** The text of the first content of a tools/call result. */
  static String text(JsonRpcResponse response) {
    assertFalse(response.isError(), () -> "error answer: " + response.error());
    return response.result().path("content").path(0).path("text").asText();
  }

  /** initialize (latest version), then notifications/initialized; returns the initialize result. */
  static JsonRpcResponse handshake(UpstreamConnection connection, RecordingListener listener) {
    send(connection, initialize(0, ProtocolVersions.LATEST));
    JsonRpcResponse answer = listener.awaitResponse(id(0));
    assertFalse(answer.isError(), () -> "initialize failed: " + answer.error());
    send(connection, initialized());
    return answer;
  }

  static void send(
      UpstreamConnection connection, dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage message) {
    await(connection.send(message));
  }

  static <T> T await(CompletionStage<T> stage) {
    try {
      return stage
          .toCompletableFuture()
          .get(RecordingListener.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("stage did not complete: " + e, e);
    }
  }
}
