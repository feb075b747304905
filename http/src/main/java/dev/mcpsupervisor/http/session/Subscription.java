package dev.mcpsupervisor.http.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A 2026-07-28 {@code subscriptions/listen} stream: the part of its filter the gateway honors (the
 * list changes its servers announce, and the resources a server subscribed to on its behalf), the
 * acknowledgement that opens it, each notification tagged with its id, and the result that closes
 * it. What arrives before the acknowledgement (the resources are being subscribed) waits for it,
 * since nothing may precede it on the stream.
 */
public final class Subscription {

  public static final String SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
  public static final String ACKNOWLEDGED = "notifications/subscriptions/acknowledged";
  static final String RESOURCE_SUBSCRIPTIONS = "resourceSubscriptions";

  /**
   * What may wait for the acknowledgement; list changes are idempotent, updates say "read again".
   */
  private static final int MAX_WAITING = 256;

  /** The filter field of each notification, and the capability that announces it. */
  private record Kind(String filterField, String capability) {}

  private static final Map<String, Kind> KINDS =
      Map.of(
          McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED, new Kind("toolsListChanged", "tools"),
          McpMethods.NOTIFICATION_PROMPTS_LIST_CHANGED, new Kind("promptsListChanged", "prompts"),
          McpMethods.NOTIFICATION_RESOURCES_LIST_CHANGED,
              new Kind("resourcesListChanged", "resources"));

  private record Waiting(String server, JsonRpcNotification notification) {}

  private final JsonNode id;
  private final ObjectNode honored;
  private final List<String> resourcesAsked;

  /** URI → the server that subscribed to it; known once acknowledged. */
  private Map<String, String> resources;

  private final List<Waiting> waiting = new ArrayList<>();

  private Subscription(JsonNode id, ObjectNode honored, List<String> resourcesAsked) {
    this.id = id;
    this.honored = honored;
    this.resourcesAsked = resourcesAsked;
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
    Set<String> uris = new LinkedHashSet<>();
    if (capabilities.path("resources").path("subscribe").asBoolean(false)) {
      asked
          .path(RESOURCE_SUBSCRIPTIONS)
          .forEach(
              uri -> {
                if (uri.isTextual()) {
                  uris.add(uri.textValue());
                }
              });
    }
    return new Subscription(listen.id(), honored, List.copyOf(uris));
  }

  /** The resources to subscribe to before the acknowledgement: those asked for, if a server can. */
  List<String> resourcesAsked() {
    return resourcesAsked;
  }

  /**
   * The stream opens: its first frame says which notifications it will carry ({@code subscribed}:
   * each resource a server took, and that server), then come those that arrived meanwhile.
   */
  List<ObjectNode> acknowledge(Map<String, String> subscribed) {
    resources = new LinkedHashMap<>();
    resourcesAsked.stream()
        .filter(subscribed::containsKey)
        .forEach(uri -> resources.put(uri, subscribed.get(uri)));
    ObjectNode notifications = honored.deepCopy();
    if (!resources.isEmpty()) {
      resources.keySet().forEach(notifications.putArray(RESOURCE_SUBSCRIPTIONS)::add);
    }
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.set("notifications", notifications);
    params.set("_meta", tag());
    List<ObjectNode> frames = new ArrayList<>();
    frames.add(JsonRpcCodec.toJson(new JsonRpcNotification(ACKNOWLEDGED, params)));
    waiting.forEach(
        early -> {
          ObjectNode frame = deliver(early.server(), early.notification());
          if (frame != null) {
            frames.add(frame);
          }
        });
    waiting.clear();
    return frames;
  }

  /**
   * The notification of {@code server} as the stream carries it; null when the filter leaves it
   * out, or while it waits for the acknowledgement.
   */
  ObjectNode deliver(String server, JsonRpcNotification notification) {
    if (resources == null) {
      if (waiting.size() < MAX_WAITING) {
        waiting.add(new Waiting(server, notification));
      }
      return null;
    }
    if (!wanted(server, notification)) {
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

  /** A list change the filter took, or an update of a resource this server subscribed to for it. */
  private boolean wanted(String server, JsonRpcNotification notification) {
    if (McpMethods.NOTIFICATION_RESOURCE_UPDATED.equals(notification.method())) {
      String uri =
          notification.params() == null ? "" : notification.params().path("uri").asText("");
      return server.equals(resources.get(uri));
    }
    Kind kind = KINDS.get(notification.method());
    return kind != null && honored.path(kind.filterField()).asBoolean(false);
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
