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
 * @param seedNodes the nodes a starting node joins through, in order; empty with {@code discovery}
 * @param discovery how a starting node finds the others instead of seed nodes; null: seed nodes
 * @param tls the node's certificate and the ones it trusts (Artery over TLS, mutual); null: plain
 *     TCP
 * @param secret shared by every node of the cluster; never logged or shown (see {@link #toString})
 */
public record ClusterConfig(
    String host, int port, List<SeedNode> seedNodes, Discovery discovery, Tls tls, String secret) {

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

  /** A node that joins through seed nodes, over plain TCP. */
  public ClusterConfig(String host, int port, List<SeedNode> seedNodes, String secret) {
    this(host, port, seedNodes, null, null, secret);
  }

  /** Whether Artery binds a loopback address, out of the network's reach. */
  public boolean bindsLoopback() {
    return GatewayConfig.isLoopback(host);
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
      return hostPort(host, port);
    }
  }

  /** One node's management endpoint, where Cluster Bootstrap asks it about the cluster. */
  public record ContactPoint(String host, int port) {

    /** {@code host:port}, an IPv6 literal in brackets. */
    @Override
    public String toString() {
      return hostPort(host, port);
    }
  }

  private static String hostPort(String host, int port) {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  /** How Cluster Bootstrap finds the nodes' contact points. */
  public enum DiscoveryMethod {
    /** The pods of the Kubernetes API whose label {@code app} is the service name. */
    KUBERNETES_API("kubernetes-api"),
    /** DNS: SRV records when a port name is set, else the A/AAAA records of the service name. */
    DNS("dns"),
    /** The contact points listed in the configuration ({@link Discovery#endpoints}). */
    CONFIG("config");

    private final String configName;

    DiscoveryMethod(String configName) {
      this.configName = configName;
    }

    /** As written in the configuration. */
    public String configName() {
      return configName;
    }
  }

  /**
   * The {@code gateway.cluster.discovery} section: Pekko Management's HTTP endpoint on this node,
   * and Cluster Bootstrap finding the others through {@code method}.
   *
   * @param serviceName what discovery looks up (the Kubernetes label, the DNS name, the key of the
   *     endpoints)
   * @param requiredContactPoints contact points that must be found, none of them in a cluster,
   *     before the one with the lowest address forms a new cluster
   * @param portName the named port (Kubernetes) or SRV port name (DNS) of the management endpoint;
   *     null: {@code managementPort} on every contact point
   * @param managementPort where this node's management endpoint listens, on the cluster's host
   * @param endpoints the contact points of method {@code config}; empty for the others
   */
  public record Discovery(
      DiscoveryMethod method,
      String serviceName,
      int requiredContactPoints,
      String portName,
      int managementPort,
      List<ContactPoint> endpoints) {

    public Discovery {
      Objects.requireNonNull(method, "method");
      Objects.requireNonNull(serviceName, "serviceName");
      endpoints = List.copyOf(endpoints);
    }
  }

  /**
   * The {@code gateway.cluster.tls} section: Artery over TLS with mutual authentication. Both key
   * stores are PKCS #12 (or the JDK's default type) and open with the one password.
   *
   * @param keyStore this node's private key and certificate
   * @param trustStore the certificate authorities a peer's certificate must come from
   * @param password of both stores and of the key; never logged or shown
   */
  public record Tls(String keyStore, String trustStore, String password) {

    public Tls {
      Objects.requireNonNull(keyStore, "keyStore");
      Objects.requireNonNull(trustStore, "trustStore");
      Objects.requireNonNull(password, "password");
    }

    /** The password left out. */
    @Override
    public String toString() {
      return "Tls[keyStore=" + keyStore + ", trustStore=" + trustStore + ", password=(set)]";
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
        + ", discovery="
        + discovery
        + ", tls="
        + tls
        + ", secret=(set)]";
  }
}
