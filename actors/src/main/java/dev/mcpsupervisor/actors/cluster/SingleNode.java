package dev.mcpsupervisor.actors.cluster;

import java.util.List;

/** {@link Membership#SINGLE_NODE}: no cluster, so always up, the leader, and no members. */
final class SingleNode implements Membership {

  @Override
  public boolean clustered() {
    return false;
  }

  @Override
  public boolean isUp() {
    return true;
  }

  @Override
  public String selfAddress() {
    return "";
  }

  @Override
  public String selfNode() {
    return "";
  }

  @Override
  public List<MemberView> members() {
    return List.of();
  }

  @Override
  public boolean isLeader() {
    return true;
  }

  @Override
  public int unreachableCount() {
    return 0;
  }
}
