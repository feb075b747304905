package dev.mcpsupervisor.http.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.http.request.ClientRequests;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;

/**
 * What the upstreams send a downstream session's client: notifications go to the stream they belong
 * on; requests (sampling, elicitation, roots) are relayed under an id of the session's own, and the
 * client's answers go back. Runs on the session's thread; {@link ServerRequestBridge} decides and
 * remembers, this sends, and the session times what it relayed.
 */
final class UpstreamRelay {

  private final DownstreamStreams streams;
  private final ClientNotifications notifications;
  private final ServerRequestBridge serverRequests = new ServerRequestBridge();

  UpstreamRelay(DownstreamStreams streams, ClientNotifications notifications) {
    this.streams = streams;
    this.notifications = notifications;
  }

  void notification(DownstreamSession.UpstreamNotification upstream) {
    JsonRpcNotification notification = upstream.notification();
    JsonNode params =
        notification.params() == null ? JsonRpcCodec.emptyObject() : notification.params();
    if (McpMethods.NOTIFICATION_CANCELLED.equals(notification.method())) {
      JsonRpcNotification withdrawn =
          serverRequests.withdrawn(upstream.server(), notification, params);
      if (withdrawn != null) {
        streams.sendUnrelated(JsonRpcCodec.toJson(withdrawn), upstream.server());
      }
      return;
    }
    notifications.fromServer(upstream, params, streams);
  }

  /**
   * Sampling, elicitation, roots: sent to the client under an id of ours, which this answers (its
   * answer is awaited until the session's deadline for it); null when refused upstream at once.
   *
   * @param client the session's client, or null before initialize
   */
  JsonNode request(DownstreamSession.UpstreamRequest upstream, ClientRequests.Client client) {
    JsonNode capabilities = client == null ? JsonRpcCodec.emptyObject() : client.capabilities();
    ServerRequestBridge.Relayed relayed = serverRequests.relay(upstream, capabilities);
    if (relayed == null) {
      return null;
    }
    ObjectNode json = relayed.json();
    if (!streams.sendOnTaggedExchange(json, upstream.relatedTag())
        && !streams.sendRelated(json, upstream.server())) {
      ServerRequestBridge.refuse(
          upstream, "no stream is open to the client (no SSE request in flight, no GET stream)");
      return null;
    }
    serverRequests.sent(relayed, upstream);
    return relayed.downstreamId();
  }

  /**
   * A response the client posted: the answer to one of the relayed requests; false if none waited
   * for it.
   */
  boolean clientAnswered(JsonRpcResponse response) {
    return serverRequests.answered(response);
  }

  /** The deadline passed: the supervisor answers upstream by its own timer, this only forgets. */
  void expired(JsonNode downstreamId) {
    serverRequests.expired(downstreamId);
  }

  /** The session ends: every relayed request still waiting is answered upstream with an error. */
  void failAll(String why) {
    serverRequests.failAll(why);
  }
}
