package dev.mcpsupervisor.protocol.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A response: exactly one of {@code result} and {@code error} is non-null. The id is JSON null only
 * for errors about a request whose id could not be read (parse error, invalid request).
 */
public record JsonRpcResponse(JsonNode id, JsonNode result, JsonRpcError error, ObjectNode extras)
    implements JsonRpcMessage {

  public JsonRpcResponse {
    id = id == null ? NullNode.getInstance() : id;
    extras = extras == null ? JsonRpcCodec.emptyObject() : extras;
    if ((result == null) == (error == null)) {
      throw new IllegalArgumentException("a response has exactly one of result and error");
    }
  }

  public static JsonRpcResponse success(JsonNode id, JsonNode result) {
    return new JsonRpcResponse(id, result, null, null);
  }

  public static JsonRpcResponse failure(JsonNode id, JsonRpcError error) {
    return new JsonRpcResponse(id, null, error, null);
  }

  public static JsonRpcResponse failure(JsonNode id, int code, String message) {
    return failure(id, new JsonRpcError(code, message));
  }

  public boolean isError() {
    return error != null;
  }

  public JsonRpcResponse withId(JsonNode newId) {
    return new JsonRpcResponse(newId, result, error, extras);
  }
}
