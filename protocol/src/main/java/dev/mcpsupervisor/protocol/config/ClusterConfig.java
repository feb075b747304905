package dev.mcpsupervisor.protocol.config;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

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

  /**
   * A key for one use ({@code label}) derived from the cluster's secret, the same on every node:
   * HMAC-SHA256 of the label under the secret, so that the secret itself keys nothing and one
   * derived key tells nothing of another.
   */
  public byte[] derivedKey(String label) {
    return derivedKey(secret, label);
  }

  /** {@link #derivedKey(String)} of a secret alone (a node of another cluster, in tests). */
  public static byte[] derivedKey(String secret, String label) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return mac.doFinal(label.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java platform must support HmacSHA256", e);
    }
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
