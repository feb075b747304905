package dev.mcpsupervisor.cluster;

import dev.mcpsupervisor.actors.cluster.Membership;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * A cluster node's {@link Membership}, read from the snapshot that Pekko keeps volatile and updates
 * with its cluster events (no actor is asked).
 */
final class ClusterMembership implements Membership {

  private final Cluster cluster;

  ClusterMembership(Cluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public boolean clustered() {
    return true;
  }

  @Override
  public boolean isUp() {
    return cluster.selfMember().status().equals(MemberStatus.up());
  }

  @Override
  public String selfAddress() {
    return cluster.selfMember().address().toString();
  }

  @Override
  public String selfNode() {
    return node(cluster.selfMember());
  }

  @Override
  public List<MemberView> members() {
    ClusterEvent.CurrentClusterState state = cluster.state();
    Set<Member> unreachable = state.getUnreachable();
    List<MemberView> members = new ArrayList<>();
    for (Member member : state.getMembers()) {
      members.add(
          new MemberView(
              member.address().toString(),
              node(member),
              status(member.status()),
              !unreachable.contains(member)));
    }
    return members;
  }

  @Override
  public boolean isLeader() {
    return cluster.selfMember().address().equals(cluster.state().getLeader());
  }

  @Override
  public int unreachableCount() {
    return cluster.state().getUnreachable().size();
  }

  private static String node(Member member) {
    return member.address() + "#" + member.uniqueAddress().longUid();
  }

  private static String status(MemberStatus status) {
    // "Up", "WeaklyUp", "Joining": the case object's name
    String name = status.toString();
    return name.substring(0, 1).toLowerCase(Locale.ROOT) + name.substring(1);
  }
}
