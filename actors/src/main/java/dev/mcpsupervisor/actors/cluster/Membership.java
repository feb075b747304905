package dev.mcpsupervisor.actors.cluster;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * This node's view of its cluster, read without asking an actor: whether this node is {@code Up},
 * the members and the unreachable ones. A single node is always up and has no members ({@link
 * #SINGLE_NODE}); a node of a cluster gets its view from {@link ClusterNodes}.
 */
public interface Membership {

  /** A single node's: always up, no cluster. */
  Membership SINGLE_NODE = new SingleNode();

  /**
   * One member as this node sees it.
   *
   * @param address where it is ({@code pekko://name@host:port}): a node restarted there has it too
   * @param node which incarnation it is ({@code address#uid}): a node restarted on the same address
   *     is another node, with none of its previous incarnation's state
   */
  record MemberView(String address, String node, String status, boolean reachable) {}

  boolean clustered();

  /** Whether this node is {@code Up} (always, for a single node). */
  boolean isUp();

  /** This node's address ({@code pekko://name@host:port}); empty for a single node. */
  String selfAddress();

  /**
   * This node's incarnation ({@code pekko://name@host:port#uid}, see {@link MemberView#node}): what
   * names the node that holds a session or a round; empty for a single node.
   */
  String selfNode();

  /** The members, by address, each with its status in lower case ({@code up}, {@code joining}). */
  List<MemberView> members();

  /**
   * Whether this node is its cluster's leader now (one node of the cluster at a time, for chores
   * that one node does for all); a single node always is.
   */
  boolean isLeader();

  /** How many members this node cannot reach now. */
  int unreachableCount();

  /** Members by status, for the gauges. */
  default Map<String, Long> membersByStatus() {
    return members().stream()
        .collect(Collectors.groupingBy(MemberView::status, TreeMap::new, Collectors.counting()));
  }
}
