package dev.mcpsupervisor.protocol.config;

import java.util.List;
import java.util.Objects;

/**
 * The {@code gateway.cluster} section: this gateway is one node of a Pekko cluster. Absent (null in
 * {@link GatewayConfig#cluster()}): a single node, with no cluster provider.
 *
 * @param host the address Artery binds and other nodes reach (only this one)
 * @param port Artery's TCP port; 0 picks a free one
 * @param seedNodes the nodes a starting node joins through, in order
 * @param secret shared by every node of the cluster; never logged or shown (see {@link #toString})
 */
public record ClusterConfig(String host, int port, List<SeedNode> seedNodes, String secret) {

  /**
   * Shorter secrets are refused at start: they can be guessed, and the cluster name derives from
   * it.
   */
  public static final int MIN_SECRET_LENGTH = 32;

  public ClusterConfig {
    Objects.requireNonNull(host, "host");
    seedNodes = List.copyOf(seedNodes);
    Objects.requireNonNull(secret, "secret");
  }

  /** One node a starting node joins through: its Artery host and port. */
  public record SeedNode(String host, int port) {

    /** {@code host:port}, an IPv6 literal in brackets. */
    @Override
    public String toString() {
      return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
  }

  /** The secret left out: it is never logged. */
  @Override
  public String toString() {
    return "ClusterConfig[host="
        + host
        + ", port="
        + port
        + ", seedNodes="
        + seedNodes
        + ", secret=(set)]";
  }
}
