package dev.mcpsupervisor.protocol.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** A notification: no id, never answered. {@code params} is null when absent. */
public record JsonRpcNotification(String method, JsonNode params, ObjectNode extras)
    implements JsonRpcMessage {

  public JsonRpcNotification {
    extras = extras == null ? JsonRpcCodec.emptyObject() : extras;
  }

  public JsonRpcNotification(String method, JsonNode params) {
    this(method, params, null);
  }

  public JsonRpcNotification withParams(JsonNode newParams) {
    return new JsonRpcNotification(method, newParams, extras);
  }
}
