package dev.mcpsupervisor.http.cluster;

import dev.mcpsupervisor.actors.cluster.Membership;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.session.SessionRecord;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where a request for a 2025-era session goes when this node does not serve it: the node its id
 * names while that node is in the cluster; otherwise the node its replicated {@link SessionRecord}
 * says serves it; otherwise, when that node is gone or stopping, the node that adopts it. A node
 * that stops leaves routing first: from the moment its desk says so, no node passes it a request
 * (nor back to it), and it adopts nothing; it only passes on what still reaches it, and what it
 * would have to look up or hold back it hands to a node that stays ({@link HandOff}): a node that
 * has not heard it stops still passes it requests, and a lookup or a wait there would outlive the
 * node, losing the request with it. Every node picks the same adopter for a session (highest random
 * weight over the nodes that serve: the loss of one node moves only its own sessions), so
 * concurrent requests of an orphaned session meet on one node. Plain logic on a snapshot of the
 * desks and the membership; {@link NodeDesk} acts on it.
 *
 * <p>A node is one incarnation ({@code Membership.selfNode}: address and uid): a node restarted on
 * the same host and port is another node, so it is not taken for the home of its previous
 * incarnation's sessions; those are adopted like any gone node's.
 *
 * @param desks the nodes whose desks are listed: tag of their session ids → node
 * @param members this node's view of the cluster's members, by node
 * @param self this node
 * @param leaving the nodes whose desks said they stop (this one's included once it stops): still
 *     members, maybe still listed, no longer serving
 */
record SessionRoutes(
    Map<String, String> desks,
    Map<String, Membership.MemberView> members,
    String self,
    Set<String> leaving) {

  /** Where one request goes. */
  sealed interface Route {}

  /** To the desk of the node at {@code address} (this node's own included). */
  record To(String address) implements Route {}

  /**
   * Its node is in the cluster but cannot be reached now, or not listed yet: wait and ask again.
   */
  record Wait() implements Route {}

  /** Its node is gone, or does not serve it: the replicated record decides. */
  record Find() implements Route {}

  /** No node serves the cluster's sessions (this one is the last and stops). */
  record Nowhere() implements Route {}

  /**
   * This node stops, and the request needs a lookup or a wait: to the desk of the node at {@code
   * address}, which stays and routes it as if it had come in there (no hop is counted: the stopping
   * node decided nothing, and a counted hop could make that node adopt a session another one
   * serves).
   */
  record HandOff(String address) implements Route {}

  /** How many times a request may be passed between desks before the one that has it adopts it. */
  static final int MAX_HOPS = 3;

  static final Route WAIT = new Wait();
  static final Route FIND = new Find();
  static final Route NOWHERE = new Nowhere();

  /**
   * Where a request for {@code sessionId} goes, given its {@code record} (null until found), how
   * many desks passed it on already, and the node this one last found serving it ({@code lastHome},
   * null if none).
   */
  Route of(String sessionId, SessionRecord record, int hops, String lastHome) {
    Route route = routed(sessionId, record, hops, lastHome);
    if (selfServes() || !(route instanceof Wait || route instanceof Find)) {
      return route;
    }
    String adopter = adopter(sessionId);
    return adopter == null ? route : new HandOff(adopter);
  }

  /** {@link #of}, for a node that takes sessions, or a lookup or wait at one that stops. */
  private Route routed(String sessionId, SessionRecord record, int hops, String lastHome) {
    if (record == null) {
      String named = addressOfTag(SessionIds.nodeTagOf(sessionId));
      if (named == null || named.equals(self)) {
        return lastFound(lastHome, hops); // its node is gone, or it no longer serves it here
      }
      return switch (standing(named)) {
        case SERVES -> new To(named);
        case UNREACHABLE, NOT_LISTED_YET -> WAIT;
        case GONE -> lastFound(lastHome, hops);
      };
    }
    if (hops >= MAX_HOPS && selfServes()) {
      return new To(self); // the nodes disagree about who serves it: this one ends the passing on
    }
    Standing home = standing(record.home());
    if (home == Standing.SERVES || home == Standing.UNREACHABLE) {
      return home == Standing.SERVES ? new To(record.home()) : WAIT;
    }
    String adopter = adopter(sessionId);
    return adopter == null ? NOWHERE : new To(adopter);
  }

  /**
   * A session its id no longer places (it was adopted): straight to the node this one last found
   * serving it while that node serves, not through a lookup, which reads a majority of the nodes
   * for each request. Only where the request comes in: a node that no longer holds it looks its
   * record up, so a stale {@code lastHome} costs one pass, and never a loop.
   */
  private Route lastFound(String lastHome, int hops) {
    boolean serves =
        hops == 0
            && lastHome != null
            && !lastHome.equals(self)
            && standing(lastHome) == Standing.SERVES;
    return serves ? new To(lastHome) : FIND;
  }

  /** What a node is to a session it serves. */
  enum Standing {
    /** Listed, up and reachable. */
    SERVES,
    /** A member this node cannot reach now: it may come back. */
    UNREACHABLE,
    /**
     * Reachable, its desk not listed here yet, or still joining: it has just joined. Nothing is
     * passed to a joining member: Pekko watches no actor on a member that is not up (the watch is
     * dropped), so a request passed to it and lost there would never be known lost.
     */
    NOT_LISTED_YET,
    /**
     * Not a member any more, leaving (its desk said so, or the cluster), or this node once it
     * stops.
     */
    GONE
  }

  /** Whether this node takes sessions: until it stops. */
  boolean selfServes() {
    return !leaving.contains(self);
  }

  Standing standing(String address) {
    if (leaving.contains(address)) {
      return Standing.GONE;
    }
    if (address.equals(self)) {
      return Standing.SERVES;
    }
    Membership.MemberView member = members.get(address);
    if (member == null || !serving(member.status())) {
      return Standing.GONE;
    }
    if (!member.reachable()) {
      return Standing.UNREACHABLE;
    }
    return desks.containsValue(address) && !member.status().equals("joining")
        ? Standing.SERVES
        : Standing.NOT_LISTED_YET;
  }

  /** The node that adopts an orphaned session: the same on every node with the same view. */
  String adopter(String sessionId) {
    String best = null;
    long bestWeight = Long.MIN_VALUE;
    for (String address : desks.values()) {
      if (standing(address) != Standing.SERVES) {
        continue;
      }
      long weight = weight(sessionId, address);
      if (best == null
          || weight > bestWeight
          || (weight == bestWeight && address.compareTo(best) < 0)) {
        best = address;
        bestWeight = weight;
      }
    }
    return best;
  }

  private String addressOfTag(String tag) {
    if (tag == null) {
      return null;
    }
    String listed = desks.get(tag);
    if (listed != null) {
      return listed;
    }
    for (String address :
        members.keySet()) { // a member whose desk is not listed (yet, or any more)
      if (SessionIds.nodeTag(address).equals(tag)) {
        return address;
      }
    }
    return null;
  }

  private static boolean serving(String status) {
    return status.equals("up") || status.equals("weaklyUp") || status.equals("joining");
  }

  private static long weight(String sessionId, String address) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest((sessionId + '|' + address).getBytes(StandardCharsets.UTF_8));
      long weight = 0;
      for (int i = 0; i < Long.BYTES; i++) {
        weight = (weight << 8) | (digest[i] & 0xff);
      }
      return weight;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  /** The members of {@code membership} by node. */
  static Map<String, Membership.MemberView> membersOf(List<Membership.MemberView> members) {
    Map<String, Membership.MemberView> byNode = new HashMap<>();
    members.forEach(member -> byNode.put(member.node(), member));
    return byNode;
  }

  /**
   * The node at {@code address} (a listed desk's: the receptionist names no incarnation), or null
   * when none is a member in {@code members}: the one that serves when an incarnation that left is
   * still listed beside the one that replaced it.
   */
  static String nodeAt(String address, List<Membership.MemberView> members) {
    String found = null;
    for (Membership.MemberView member : members) {
      if (member.address().equals(address) && (found == null || serving(member.status()))) {
        found = member.node();
      }
    }
    return found;
  }
}
