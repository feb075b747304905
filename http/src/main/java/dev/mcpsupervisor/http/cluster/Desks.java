package dev.mcpsupervisor.http.cluster;

import dev.mcpsupervisor.actors.cluster.Membership;
import dev.mcpsupervisor.http.access.SessionIds;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a {@link NodeDesk} knows of the desks: those the receptionist lists, and the nodes that said
 * they stop, by incarnation. A node that said it stops stays stopping until it is no member any
 * more: the receptionist leaves a desk out of its listing while the desk's node is unreachable and
 * lists it again once it is reachable, and a stopping node listed again must not be passed requests
 * again. Which node a listed desk is, its name says ({@link #deskName}: the receptionist names no
 * incarnation); it counts once this node sees that member, since the receptionist may list a desk
 * before its member is seen here.
 *
 * @param leaving the nodes ({@code address#uid}) that said they stop, this one's too once it does
 */
record Desks(Set<ActorRef<NodeDesk.Command>> listed, Set<String> leaving) {

  static final Desks NONE = new Desks(Set.of(), Set.of());

  /**
   * A new listing; of the nodes that said they stop, those still members (and this node) still
   * stop.
   */
  Desks listed(
      Set<ActorRef<NodeDesk.Command>> listing, String self, List<Membership.MemberView> members) {
    Set<String> nodes =
        members.stream().map(Membership.MemberView::node).collect(Collectors.toSet());
    Set<String> still = new HashSet<>(leaving);
    still.removeIf(node -> !node.equals(self) && !nodes.contains(node));
    return new Desks(Set.copyOf(listing), Set.copyOf(still));
  }

  Desks leaving(String node) {
    Set<String> more = new HashSet<>(leaving);
    more.add(node);
    return new Desks(listed, Set.copyOf(more));
  }

  /**
   * The listed desks by their node ({@code self}'s own under {@code self}); a desk whose member
   * this node does not see (yet, or any more) is left out.
   */
  Map<String, ActorRef<NodeDesk.Command>> byNode(String self, List<Membership.MemberView> members) {
    Map<String, ActorRef<NodeDesk.Command>> byNode = new HashMap<>();
    for (ActorRef<NodeDesk.Command> desk : listed) {
      var path = desk.path();
      String node =
          path.address().hasLocalScope()
              ? self
              : nodeOf(path.address().toString(), path.name(), members);
      if (node != null) {
        byNode.put(node, desk);
      }
    }
    return byNode;
  }

  /**
   * The name of the desk of {@code node} ({@code address#uid}): it carries the incarnation's uid,
   * so a listed desk is known by its node, and the desk of a node restarted on the same address is
   * never taken for its predecessor's or the other way round.
   */
  static String deskName(long instance, String node) {
    return "mcp-gateway-desk-" + instance + UID_MARK + node.substring(node.lastIndexOf('#') + 1);
  }

  /**
   * The member whose desk is {@code name} at {@code address}, or null when none is a member in
   * {@code members}.
   */
  static String nodeOf(String address, String name, List<Membership.MemberView> members) {
    int mark = name.lastIndexOf(UID_MARK);
    if (mark < 0) { // a desk of the release before, which named no incarnation
      return SessionRoutes.nodeAt(address, members);
    }
    String node = address + '#' + name.substring(mark + 1);
    return members.stream().anyMatch(member -> member.node().equals(node)) ? node : null;
  }

  private static final char UID_MARK = '~';

  /** Where session requests go from {@code self}, as these desks and {@code members} stand. */
  SessionRoutes routes(String self, List<Membership.MemberView> members) {
    Map<String, String> byTag = new HashMap<>();
    byNode(self, members).keySet().forEach(node -> byTag.put(SessionIds.nodeTag(node), node));
    return new SessionRoutes(
        Map.copyOf(byTag), SessionRoutes.membersOf(members), self, Set.copyOf(leaving));
  }
}
