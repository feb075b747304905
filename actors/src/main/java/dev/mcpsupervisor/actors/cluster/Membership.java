package dev.mcpsupervisor.actors.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.ClusterActorRefProvider;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * This node's view of its cluster, read without asking an actor (Pekko keeps it in a volatile
 * snapshot that its cluster events update): whether this node is {@code Up}, the members and the
 * unreachable ones. A single node (the local actor ref provider) is always up and has no members.
 */
public final class Membership {

  /** A single node's: always up, no cluster. */
  public static final Membership SINGLE_NODE = new Membership(null);

  /** One member as this node sees it. */
  public record MemberView(String address, String status, boolean reachable) {}

  private final Cluster cluster;

  private Membership(Cluster cluster) {
    this.cluster = cluster;
  }

  /** The view of {@code system}'s cluster, or {@link #SINGLE_NODE} without the cluster provider. */
  public static Membership of(ActorSystem<?> system) {
    if (system.classicSystem() instanceof ExtendedActorSystem extended
        && extended.provider() instanceof ClusterActorRefProvider) {
      return new Membership(Cluster.get(system));
    }
    return SINGLE_NODE;
  }

  public boolean clustered() {
    return cluster != null;
  }

  /** Whether this node is {@code Up} (always, for a single node). */
  public boolean isUp() {
    return cluster == null || cluster.selfMember().status().equals(MemberStatus.up());
  }

  /** This node's address ({@code pekko://name@host:port}); empty for a single node. */
  public String selfAddress() {
    return cluster == null ? "" : cluster.selfMember().address().toString();
  }

  /** The members, by address, each with its status in lower case ({@code up}, {@code joining}). */
  public List<MemberView> members() {
    if (cluster == null) {
      return List.of();
    }
    ClusterEvent.CurrentClusterState state = cluster.state();
    Set<Member> unreachable = state.getUnreachable();
    List<MemberView> members = new ArrayList<>();
    for (Member member : state.getMembers()) {
      members.add(
          new MemberView(
              member.address().toString(), status(member.status()), !unreachable.contains(member)));
    }
    return members;
  }

  /**
   * Whether this node is its cluster's leader now (one node of the cluster at a time, for chores
   * that one node does for all); a single node always is.
   */
  public boolean isLeader() {
    return cluster == null || cluster.selfMember().address().equals(cluster.state().getLeader());
  }

  /** How many members this node cannot reach now. */
  public int unreachableCount() {
    return cluster == null ? 0 : cluster.state().getUnreachable().size();
  }

  /** Members by status, for the gauges. */
  public java.util.Map<String, Long> membersByStatus() {
    return members().stream()
        .collect(
            Collectors.groupingBy(
                MemberView::status, java.util.TreeMap::new, Collectors.counting()));
  }

  private static String status(MemberStatus status) {
    // "Up", "WeaklyUp", "Joining": the case object's name
    String name = status.toString();
    return name.substring(0, 1).toLowerCase(Locale.ROOT) + name.substring(1);
  }
}
