package dev.mcpsupervisor.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.McpMethods;

/**
 * Where what the upstreams send a downstream session goes: a stateless client's server requests
 * wait for its input_required round and a listen stream takes the notifications its filter wants
 * ({@link StatelessRequests}); everything else is relayed to a session-era client ({@link
 * UpstreamRelay}). Runs on the session's thread.
 */
final class UpstreamTraffic {

  private final UpstreamRelay relay;

  /** Null until the session serves a stateless request (most never do). */
  private StatelessRequests stateless;

  UpstreamTraffic(UpstreamRelay relay) {
    this.relay = relay;
  }

  void statelessBegun(StatelessRequests stateless) {
    this.stateless = stateless;
  }

  /** A cancellation also withdraws the request from a stateless client's next round. */
  void notification(DownstreamSession.UpstreamNotification upstream) {
    if (stateless != null
        && McpMethods.NOTIFICATION_CANCELLED.equals(upstream.notification().method())
        && upstream.notification().params() != null) {
      stateless.withdrawn(upstream.server(), upstream.notification().params().path("requestId"));
    }
    if (stateless == null || !stateless.listened(upstream)) {
      relay.notification(upstream);
    }
  }

  /**
   * @param client the session's client, or null before initialize
   */
  void request(DownstreamSession.UpstreamRequest upstream, ClientRequests.Client client) {
    if (stateless != null && client != null && client.isStateless()) {
      stateless.serverRequest(upstream, client);
    } else {
      relay.request(upstream, client);
    }
  }

  /** A relayed server request's deadline passed. */
  void expired(JsonNode downstreamId) {
    relay.expired(downstreamId);
  }

  /** The session ends: every server request still waiting is answered upstream with an error. */
  void failAll(String why) {
    relay.failAll(why);
    if (stateless != null) {
      stateless.end(why);
    }
  }
}
