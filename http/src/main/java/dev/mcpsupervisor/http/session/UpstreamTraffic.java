package dev.mcpsupervisor.http.session;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Where what the upstreams send a downstream session goes: a listen stream takes the notifications
 * its filter wants ({@link ListenStream}) and answers no server request; everything else is relayed
 * to a session-era client ({@link UpstreamRelay}). Runs on the session's thread.
 */
final class UpstreamTraffic {

  private final UpstreamRelay relay;

  /** Null until the session serves a listen stream (most never do). */
  private ListenStream listen;

  UpstreamTraffic(UpstreamRelay relay) {
    this.relay = relay;
  }

  void listening(ListenStream stream) {
    this.listen = stream;
  }

  void notification(DownstreamSession.UpstreamNotification upstream) {
    if (listen == null || !listen.listened(upstream)) {
      relay.notification(upstream);
    }
  }

  /**
   * @param client the session's client, or null before initialize
   */
  void request(DownstreamSession.UpstreamRequest upstream, ClientRequests.Client client) {
    if (client != null && client.isStateless()) {
      ServerRequestBridge.refuse(upstream, "a listen stream answers no server request");
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
  }
}
