package dev.mcpsupervisor.http.session;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.request.ClientRequests;
import dev.mcpsupervisor.protocol.CrossNode;
import java.util.Map;
import java.util.Set;

/**
 * What a cluster node needs to go on serving a 2025-era downstream session another node held,
 * without a new {@code initialize}: the session's protocol state, replicated across the cluster
 * ({@code SessionReplicas}) whenever it changes. Not in it: what is in flight (calls, streams,
 * pending server requests), which dies with its node, and what a session learns again by itself
 * (which server listed which resource).
 *
 * @param path the endpoint it was created on
 * @param owner the identity it is bound to
 * @param client the protocol, capabilities and info negotiated at initialize
 * @param upstreams each server's initialize result, as the session's initialize gathered them
 * @param logLevel what {@code logging/setLevel} asked; null before
 * @param subscriptions resource URI → the server that took the subscription
 * @param home the address of the node that serves it now
 */
public record SessionRecord(
    String id,
    String path,
    Identity owner,
    ClientRequests.Client client,
    Map<String, JsonNode> upstreams,
    String logLevel,
    Map<String, String> subscriptions,
    String home)
    implements CrossNode {

  public SessionRecord {
    upstreams = Map.copyOf(upstreams);
    subscriptions = Map.copyOf(subscriptions);
  }

  /** A session's protocol state, as {@code home} serves it: what a survivor needs of it. */
  static SessionRecord of(
      String id,
      Identity owner,
      ClientRequests.Client client,
      ClientRequests requests,
      String home) {
    return new SessionRecord(
        id,
        requests.path(),
        owner,
        client,
        requests.upstreams(),
        requests.logLevel(),
        requests.subscribed(),
        home);
  }

  /** The same session, served from {@code node}. */
  public SessionRecord servedFrom(String node) {
    return new SessionRecord(id, path, owner, client, upstreams, logLevel, subscriptions, node);
  }

  /** The subscribed URIs. */
  Set<String> subscribed() {
    return subscriptions.keySet();
  }
}
