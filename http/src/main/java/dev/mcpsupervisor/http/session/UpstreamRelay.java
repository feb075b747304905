package dev.mcpsupervisor.http.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.slf4j.Logger;

/**
 * What the upstreams send a downstream session's client: notifications go to the stream they belong
 * on; requests (sampling, elicitation, roots) are relayed under an id of the session's own with a
 * deadline, and the client's answers go back. Runs on the session's thread; {@link
 * ServerRequestBridge} decides and remembers, this sends and times.
 */
final class UpstreamRelay {

  private final String sessionId;
  private final DownstreamStreams streams;
  private final ClientRequests requests;
  private final ServerRequestBridge serverRequests = new ServerRequestBridge();
  private final TimerScheduler<DownstreamSession.Command> timers;
  private final Function<JsonNode, DownstreamSession.Command> expired;
  private final Duration serverRequestTimeout;

  /** The session's logger, fetched at each use: fetching it sets the actor's logging MDC. */
  private final Supplier<Logger> log;

  /**
   * @param timers the session's timers: a relayed request's deadline is keyed by its downstream id
   * @param expired the session's own message for a deadline that passed, for a downstream id
   */
  UpstreamRelay(
      String sessionId,
      DownstreamStreams streams,
      ClientRequests requests,
      TimerScheduler<DownstreamSession.Command> timers,
      Function<JsonNode, DownstreamSession.Command> expired,
      Duration serverRequestTimeout,
      Supplier<Logger> log) {
    this.sessionId = sessionId;
    this.streams = streams;
    this.requests = requests;
    this.timers = timers;
    this.expired = expired;
    this.serverRequestTimeout = serverRequestTimeout;
    this.log = log;
  }

  void notification(DownstreamSession.UpstreamNotification upstream) {
    JsonRpcNotification notification = upstream.notification();
    JsonNode params =
        notification.params() == null ? JsonRpcCodec.emptyObject() : notification.params();
    if (McpMethods.NOTIFICATION_CANCELLED.equals(notification.method())) {
      JsonRpcNotification withdrawn =
          serverRequests.withdrawn(upstream.server(), notification, params, timers::cancel);
      if (withdrawn != null) {
        streams.sendUnrelated(JsonRpcCodec.toJson(withdrawn), upstream.server());
      }
      return;
    }
    requests.route(upstream, params, streams);
  }

  /**
   * Sampling, elicitation, roots: sent to the client under an id of ours; its answer goes back
   * upstream.
   */
  void request(DownstreamSession.UpstreamRequest upstream, ClientRequests.Client client) {
    if (client != null && client.isStateless()) {
      // the revision forbids server requests on a response stream; input_required is its way
      ServerRequestBridge.refuse(
          upstream,
          "a "
              + client.protocolVersion()
              + " client is asked through input_required results,"
              + " which the gateway does not bridge yet");
      return;
    }
    JsonNode capabilities = client == null ? JsonRpcCodec.emptyObject() : client.capabilities();
    ServerRequestBridge.Relayed relayed = serverRequests.relay(upstream, capabilities);
    if (relayed == null) {
      return;
    }
    ObjectNode json = relayed.json();
    if (!streams.sendOnTaggedExchange(json, upstream.relatedTag())
        && !streams.sendRelated(json, upstream.server())) {
      ServerRequestBridge.refuse(
          upstream, "no stream is open to the client (no SSE request in flight, no GET stream)");
      return;
    }
    serverRequests.sent(relayed, upstream);
    timers.startSingleTimer(
        relayed.downstreamId(), expired.apply(relayed.downstreamId()), serverRequestTimeout);
  }

  /** A response the client posted: the answer to one of the relayed requests. */
  void clientAnswered(JsonRpcResponse response) {
    if (serverRequests.answered(response)) {
      timers.cancel(response.id());
    } else {
      log.get()
          .debug(
              "session {}: answer for unknown request {}",
              SessionIds.redact(sessionId),
              response.id());
    }
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
