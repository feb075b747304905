package dev.mcpsupervisor.protocol.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A request: it has an id, which keeps its JSON type (a string id stays a string, a number stays a
 * number).
 *
 * @param id a TextNode or a numeric node, never null
 * @param params an object or array, or null when absent
 */
public record JsonRpcRequest(JsonNode id, String method, JsonNode params, ObjectNode extras)
    implements JsonRpcMessage {

  public JsonRpcRequest {
    extras = extras == null ? JsonRpcCodec.emptyObject() : extras;
  }

  public JsonRpcRequest(JsonNode id, String method, JsonNode params) {
    this(id, method, params, null);
  }

  public JsonRpcRequest withId(JsonNode newId) {
    return new JsonRpcRequest(newId, method, params, extras);
  }

  public JsonRpcRequest withParams(JsonNode newParams) {
    return new JsonRpcRequest(id, method, newParams, extras);
  }
}
