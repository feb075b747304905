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
 * again. Which node a listed desk is, is read from the membership when it is needed: the
 * receptionist names no incarnation, and may list a desk before this node sees its member.
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
      var address = desk.path().address();
      String node =
          address.hasLocalScope() ? self : SessionRoutes.nodeAt(address.toString(), members);
      if (node != null) {
        byNode.put(node, desk);
      }
    }
    return byNode;
  }

  /** Where session requests go from {@code self}, as these desks and {@code members} stand. */
  SessionRoutes routes(String self, List<Membership.MemberView> members) {
    Map<String, String> byTag = new HashMap<>();
    byNode(self, members).keySet().forEach(node -> byTag.put(SessionIds.nodeTag(node), node));
    return new SessionRoutes(
        Map.copyOf(byTag), SessionRoutes.membersOf(members), self, Set.copyOf(leaving));
  }
}
