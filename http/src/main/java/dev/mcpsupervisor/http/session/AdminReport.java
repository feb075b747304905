package dev.mcpsupervisor.http.session;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.actors.cluster.Membership;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.ops.RecentCalls;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The {@code /admin/sessions} document: downstream sessions (ids shortened: a full id is a
 * credential), and per server key its upstream sessions with state, refcount, in-flight, stash,
 * restarts, last loss, age and pid, and per configured server its last minutes' calls. No header or
 * env values appear: key ids are names with a digest, and the snapshot holds no spec.
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

  /**
   * With the cluster's members (address, status, reachable) as this node sees them, when it is one
   * node of a cluster; no {@code cluster} member for a single node. The cluster's secret is never
   * part of it. {@code calls}: each configured server's last minutes ({@code servers}), in the
   * configuration's order.
   */
  public static ObjectNode of(
      DownstreamSessions.Listing listing,
      SupervisorSnapshot snapshot,
      Membership membership,
      Map<String, RecentCalls.Summary> calls,
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
    // leases are held by contexts, and a session's context is its full id: count them by the
    // shortened one
    Map<String, Integer> leasesBySession = new HashMap<>();
    snapshot.keys().stream()
        .flatMap(key -> key.leases().keySet().stream())
        .forEach(context -> leasesBySession.merge(SessionIds.redact(context), 1, Integer::sum));
    ArrayNode downstream = report.putArray("downstreamSessions");
    for (DownstreamSessions.SessionInfo session : listing.sessions()) {
      ObjectNode entry = downstream.addObject();
      entry.put("id", session.id());
      entry.put("endpoint", session.endpoint());
      entry.put("identity", session.identity());
      entry.put("protocolVersion", session.protocolVersion());
      ObjectNode client = entry.putObject("client");
      client.put("name", session.clientName());
      client.put("version", session.clientVersion());
      entry.put("createdAt", session.createdAt().toString());
      entry.put("idleSeconds", Duration.between(session.lastActivity(), now).toSeconds());
      entry.put("leases", leasesBySession.getOrDefault(session.id(), 0));
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
      entry.put("transport", key.transport());
      entry.put("protocol", key.protocol());
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
        if (!session.lastLoss().isEmpty()) {
          upstream.put("lastLoss", session.lastLoss());
        }
        upstream.put("ageSeconds", Duration.between(session.startedAt(), now).toSeconds());
        if (session.connectedAt() != null) {
          upstream.put(
              "connectedSeconds", Duration.between(session.connectedAt(), now).toSeconds());
        }
        if (session.pid().isPresent()) {
          upstream.put("pid", session.pid().getAsLong());
        }
      }
    }
    ObjectNode servers = report.putObject("servers");
    calls.forEach(
        (server, summary) -> {
          ObjectNode entry = servers.putObject(server);
          entry.put("callsPerSecond", round(summary.callsPerSecond()));
          entry.put("errorRate", round(summary.errorRate()));
          entry.put("p50Millis", summary.p50Millis());
          entry.put("p99Millis", summary.p99Millis());
          entry.put("slotSeconds", RecentCalls.SLOT.toSeconds());
          ArrayNode rates = entry.putArray("callsPerSecondBySlot");
          for (double rate : summary.rates()) {
            rates.add(round(rate));
          }
          ArrayNode p99s = entry.putArray("p99MillisBySlot");
          for (double p99 : summary.p99s()) {
            p99s.add(p99);
          }
        });
    return report;
  }

  private static double round(double value) {
    return Math.round(value * 1000) / 1000.0;
  }
}
