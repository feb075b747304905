package dev.mcpsupervisor.http.session;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.actors.cluster.Membership;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.time.Duration;
import java.time.Instant;

/**
 * The {@code /admin/sessions} document: downstream sessions (ids shortened: a full id is a
 * credential), and per server key its upstream sessions with state, refcount, in-flight, stash,
 * restarts, age and pid. No header or env values appear: key ids are names with a digest, and the
 * snapshot holds no spec.
 */
public final class AdminReport {

  /** Client-chosen text (clientInfo name and version) is kept per session and shown: bounded. */
  public static final int MAX_CLIENT_TEXT = 128;

  private AdminReport() {}

  /** {@code text} cut to {@link #MAX_CLIENT_TEXT} characters; null stays null. */
  static String clientText(String text) {
    return text == null || text.length() <= MAX_CLIENT_TEXT
        ? text
        : text.substring(0, MAX_CLIENT_TEXT) + "…";
  }

  public static ObjectNode of(
      DownstreamSessions.Listing listing, SupervisorSnapshot snapshot, Instant now) {
    return of(listing, snapshot, Membership.SINGLE_NODE, now);
  }

  /**
   * With the cluster's members (address, status, reachable) as this node sees them, when it is one
   * node of a cluster; no {@code cluster} member for a single node. The cluster's secret is never
   * part of it.
   */
  public static ObjectNode of(
      DownstreamSessions.Listing listing,
      SupervisorSnapshot snapshot,
      Membership membership,
      Instant now) {
    ObjectNode report = JsonRpcCodec.emptyObject();
    if (membership.clustered()) {
      ObjectNode cluster = report.putObject("cluster");
      cluster.put("self", membership.selfAddress());
      ArrayNode members = cluster.putArray("members");
      for (Membership.MemberView member : membership.members()) {
        members
            .addObject()
            .put("address", member.address())
            .put("status", member.status())
            .put("reachable", member.reachable());
      }
    }
    ArrayNode downstream = report.putArray("downstreamSessions");
    for (DownstreamSessions.SessionInfo session : listing.sessions()) {
      ObjectNode entry = downstream.addObject();
      entry.put("id", session.id());
      entry.put("endpoint", session.endpoint());
      entry.put("protocolVersion", session.protocolVersion());
      ObjectNode client = entry.putObject("client");
      client.put("name", session.clientName());
      client.put("version", session.clientVersion());
      entry.put("createdAt", session.createdAt().toString());
      entry.put("idleSeconds", Duration.between(session.lastActivity(), now).toSeconds());
      if (membership.clustered()) {
        // every node lists the sessions it holds; any node serves them (see NodeDesk)
        entry.put("node", membership.selfAddress());
      }
    }
    ArrayNode keys = report.putArray("serverKeys");
    for (SupervisorSnapshot.KeySnapshot key : snapshot.keys()) {
      ObjectNode entry = keys.addObject();
      entry.put("server", key.server());
      entry.put("key", key.keyId());
      entry.put("circuit", key.circuit());
      entry.put("leases", key.leases().size());
      ArrayNode sessions = entry.putArray("sessions");
      for (SupervisorSnapshot.SessionSnapshot session : key.sessions()) {
        ObjectNode upstream = sessions.addObject();
        upstream.put("id", session.sessionId());
        upstream.put("state", session.state());
        upstream.put("refCount", session.refCount());
        upstream.put("inFlight", session.inFlight());
        upstream.put("stashed", session.stashed());
        upstream.put("restarts", session.restarts());
        upstream.put("ageSeconds", Duration.between(session.startedAt(), now).toSeconds());
        if (session.pid().isPresent()) {
          upstream.put("pid", session.pid().getAsLong());
        }
      }
    }
    return report;
  }
}
