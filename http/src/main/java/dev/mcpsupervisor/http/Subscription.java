package dev.mcpsupervisor.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.Map;

/**
 * A 2026-07-28 {@code subscriptions/listen} stream: the part of its filter the gateway honors (the
 * list changes its servers announce), the acknowledgement that opens it, each notification tagged
 * with its id, and the result that closes it. Resource subscriptions are not honored yet: the
 * acknowledgement leaves them out, as the spec lets a server do for what it does not support.
 */
final class Subscription {

  static final String SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
  static final String ACKNOWLEDGED = "notifications/subscriptions/acknowledged";

  /** The filter field of each notification, and the capability that announces it. */
  private record Kind(String filterField, String capability) {}

  private static final Map<String, Kind> KINDS =
      Map.of(
          McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED, new Kind("toolsListChanged", "tools"),
          McpMethods.NOTIFICATION_PROMPTS_LIST_CHANGED, new Kind("promptsListChanged", "prompts"),
          McpMethods.NOTIFICATION_RESOURCES_LIST_CHANGED,
              new Kind("resourcesListChanged", "resources"));

  private final JsonNode id;
  private final ObjectNode honored;

  private Subscription(JsonNode id, ObjectNode honored) {
    this.id = id;
    this.honored = honored;
  }

  /**
   * The stream {@code listen} asks for, honoring what the servers behind it announce in {@code
   * capabilities} (their union, as initialize told it).
   */
  static Subscription of(JsonRpcRequest listen, JsonNode capabilities) {
    JsonNode asked =
        listen.params() == null
            ? JsonRpcCodec.emptyObject()
            : listen.params().path("notifications");
    ObjectNode honored = JsonRpcCodec.emptyObject();
    KINDS
        .values()
        .forEach(
            kind -> {
              if (asked.path(kind.filterField()).asBoolean(false)
                  && capabilities.path(kind.capability()).path("listChanged").asBoolean(false)) {
                honored.put(kind.filterField(), true);
              }
            });
    return new Subscription(listen.id(), honored);
  }

  /** The first frame: which notifications the stream will carry. */
  ObjectNode acknowledgement() {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.set("notifications", honored);
    params.set("_meta", tag());
    return JsonRpcCodec.toJson(new JsonRpcNotification(ACKNOWLEDGED, params));
  }

  /** The notification as the stream carries it, or null when the filter leaves it out. */
  ObjectNode deliver(JsonRpcNotification notification) {
    Kind kind = KINDS.get(notification.method());
    if (kind == null || !honored.path(kind.filterField()).asBoolean(false)) {
      return null;
    }
    ObjectNode params =
        notification.params() instanceof ObjectNode given
            ? given.deepCopy()
            : JsonRpcCodec.emptyObject();
    ObjectNode meta =
        params.get("_meta") instanceof ObjectNode given ? given : params.putObject("_meta");
    meta.setAll(tag());
    return JsonRpcCodec.toJson(notification.withParams(params));
  }

  /** The result that ends the stream gracefully (the gateway stops). */
  ObjectNode closing() {
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.put("resultType", "complete");
    result.set("_meta", tag());
    return JsonRpcCodec.toJson(JsonRpcResponse.success(id, result));
  }

  private ObjectNode tag() {
    ObjectNode meta = JsonRpcCodec.emptyObject();
    meta.set(SUBSCRIPTION_ID, id);
    return meta;
  }
}
