package dev.mcpsupervisor.http.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.http.endpoint.McpEndpoint;
import dev.mcpsupervisor.http.request.ClientRequests;
import dev.mcpsupervisor.protocol.LogLevels;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;

/**
 * A session-era (2025) client's notifications, both ways: the client's to its servers, and its
 * servers' to the stream each belongs on, if the client wants it (by the log level and the
 * subscriptions its {@link ClientRequests} keeps). Plain class on the session's thread.
 */
final class ClientNotifications {

  private final String context;
  private final McpEndpoint endpoint;
  private final SessionSupervisor supervisor;
  private final ClientRequests requests;

  ClientNotifications(
      String context, McpEndpoint endpoint, SessionSupervisor supervisor, ClientRequests requests) {
    this.context = context;
    this.endpoint = endpoint;
    this.supervisor = supervisor;
    this.requests = requests;
  }

  /**
   * notifications/cancelled cancels the request upstream; roots/list_changed goes to every server.
   */
  void fromClient(
      JsonRpcNotification notification, ClientRequests.Client client, DownstreamStreams streams) {
    JsonNode params =
        notification.params() == null ? JsonRpcCodec.emptyObject() : notification.params();
    switch (notification.method()) {
      case McpMethods.NOTIFICATION_CANCELLED -> {
        DownstreamStreams.InFlight call = streams.inFlight(params.path("requestId"));
        if (call != null && call.carriesServerMessages && !call.cancelled) {
          call.cancelled = true;
          call.calls.cancelAll();
        }
      }
      case McpMethods.NOTIFICATION_ROOTS_LIST_CHANGED -> {
        // only a client with roots can answer the roots/list that servers send in reply
        if (client != null && client.capabilities().has("roots")) {
          endpoint
              .servers()
              .forEach(server -> supervisor.notify(context, server, notification.method(), params));
        }
      }
      default -> {
        // notifications/initialized and anything else: nothing to do
      }
    }
  }

  /** A server's notification, to the stream it belongs on, if this client wants it. */
  void fromServer(
      DownstreamSession.UpstreamNotification upstream, JsonNode params, DownstreamStreams streams) {
    JsonRpcNotification notification = upstream.notification();
    switch (notification.method()) {
      case McpMethods.NOTIFICATION_PROGRESS ->
          // progress carries the client's own token (the supervisor restored it): it goes with that
          // request
          streams.sendProgress(
              JsonRpcCodec.toJson(notification), params.get("progressToken"), upstream.server());
      case McpMethods.NOTIFICATION_MESSAGE -> {
        String threshold =
            requests.logLevel() != null ? requests.logLevel() : LogLevels.DEFAULT_THRESHOLD;
        // logs on a request's upstream stream come tagged with that request: they go on its stream.
        // Untagged ones (stdio) reach every context leased on that upstream session: only a session
        // with a request in flight there can be the one they are about, so the GET stream never
        // carries them (no cross-client leak)
        if (LogLevels.passes(params.path("level").asText(""), threshold)) {
          ObjectNode json = JsonRpcCodec.toJson(notification);
          if (!streams.sendOnTaggedExchange(json, upstream.relatedTag())) {
            streams.sendOnRelatedExchange(json, upstream.server());
          }
        }
      }
      case McpMethods.NOTIFICATION_RESOURCE_UPDATED -> {
        if (requests.subscribes(params.path("uri").asText(""))) {
          streams.sendUnrelated(JsonRpcCodec.toJson(notification), upstream.server());
        }
      }
      default -> streams.sendUnrelated(JsonRpcCodec.toJson(notification), upstream.server());
    }
  }
}
