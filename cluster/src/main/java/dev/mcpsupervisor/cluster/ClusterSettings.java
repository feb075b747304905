package dev.mcpsupervisor.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValueFactory;
import dev.mcpsupervisor.actors.cluster.ClusterNodes;
import dev.mcpsupervisor.actors.cluster.Membership;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The actor system of one node of a cluster: its name, and its Pekko configuration (the cluster
 * provider, Artery bound to the configured host only, the seed nodes or Cluster Bootstrap, TLS, the
 * split-brain resolver and the CBOR binding of cross-node messages, from {@code
 * mcp-supervisor.cluster-pekko} in reference.conf). The supervisor finds it as its {@link
 * ClusterNodes} (META-INF/services).
 *
 * <p>The shared secret keeps clusters apart through the system name: it is {@code
 * mcp-supervisor-<fingerprint>}, the fingerprint an HMAC-SHA256 under the secret. Artery drops a
 * handshake addressed to another system name, and the seed addresses carry this node's own name, so
 * a node of another secret never associates with this cluster, let alone joins it. The secret
 * itself is in no setting, no address and no log line; the fingerprint is (it travels in clear in
 * every Artery frame), so this separates clusters, it does not authenticate a node: TLS with mutual
 * authentication ({@code gateway.cluster.tls}) does. See docs/architecture.md.
 */
public final class ClusterSettings implements ClusterNodes {

  /** Where reference.conf keeps Pekko's settings of a cluster node. */
  public static final String PEKKO_SETTINGS = "mcp-supervisor.cluster-pekko";

  /**
   * Where the mcp-supervisor-cluster-bootstrap artifact's reference.conf keeps Pekko's settings of
   * a node that discovers the others; absent without that artifact.
   */
  public static final String BOOTSTRAP_PEKKO_SETTINGS = "mcp-supervisor.cluster-bootstrap-pekko";

  /** Loaded through pekko.extensions, Cluster Bootstrap starts Pekko Management and itself. */
  static final String CLUSTER_BOOTSTRAP =
      "org.apache.pekko.management.cluster.bootstrap.ClusterBootstrap";

  private static final Logger LOG = LoggerFactory.getLogger(ClusterSettings.class);

  /** Hex characters of the fingerprint in the system name: 64 bits. */
  private static final int FINGERPRINT_HEX = 16;

  /** What the HMAC signs: fixed, so the fingerprint depends on the secret alone. */
  private static final String FINGERPRINT_INPUT = "mcp-supervisor cluster name v1";

  private static final String ARTERY = "pekko.remote.artery.";
  private static final String SSL_ENGINE = ARTERY + "ssl.config-ssl-engine.";
  private static final String BOOTSTRAP = "pekko.management.cluster.bootstrap.";

  /** {@code mcp-supervisor-<16 hex>}, the same on every node that shares the secret. */
  @Override
  public String systemName(ClusterConfig cluster) {
    byte[] tag = cluster.derivedKey(FINGERPRINT_INPUT);
    return SYSTEM_NAME + "-" + HexFormat.of().formatHex(tag).substring(0, FINGERPRINT_HEX);
  }

  /**
   * @throws IllegalStateException when discovery is configured without the bootstrap artifact on
   *     the classpath, or a key store of {@code tls} cannot be opened with its password
   */
  @Override
  public Config actorSystemConfig(ClusterConfig cluster, Config base) {
    Config node =
        ConfigFactory.empty()
            .withValue(ARTERY + "canonical.hostname", ConfigValueFactory.fromAnyRef(cluster.host()))
            .withValue(ARTERY + "canonical.port", ConfigValueFactory.fromAnyRef(cluster.port()))
            // bound to the configured address only, never to every interface
            .withValue(ARTERY + "bind.hostname", ConfigValueFactory.fromAnyRef(""));
    node =
        cluster.discovery() == null
            ? withSeedNodes(node, cluster)
            : withDiscovery(node, cluster, base);
    if (cluster.tls() != null) {
      node = withTls(node, cluster.tls());
    }
    plainTrafficWarning(cluster).ifPresent(LOG::warn);
    return node.withFallback(base.getConfig(PEKKO_SETTINGS)).withFallback(base);
  }

  /**
   * The one warning of a node whose Artery is reachable by the network in clear: anyone who reaches
   * its port and guesses nothing but the system name (which travels in clear) may join.
   */
  static Optional<String> plainTrafficWarning(ClusterConfig cluster) {
    if (cluster.tls() != null || cluster.bindsLoopback()) {
      return Optional.empty();
    }
    return Optional.of(
        "gateway.cluster.host "
            + cluster.host()
            + " is not a loopback address and gateway.cluster.tls is not set: node traffic is"
            + " neither encrypted nor authenticated, and whoever reaches port "
            + cluster.port()
            + " can join the cluster and read its sessions' traffic; set gateway.cluster.tls"
            + " (docs/operations.md, Scaling out)");
  }

  private Config withSeedNodes(Config node, ClusterConfig cluster) {
    String name = systemName(cluster);
    List<String> seeds =
        cluster.seedNodes().stream().map(seed -> "pekko://" + name + "@" + seed).toList();
    return node.withValue("pekko.cluster.seed-nodes", ConfigValueFactory.fromIterable(seeds));
  }

  /**
   * No seed nodes: Cluster Bootstrap (started as an extension) finds the contact points through
   * discovery, asks their management endpoints for a cluster to join, and forms one when none is
   * found. The management endpoint listens on the cluster's host only, as Artery does.
   */
  private static Config withDiscovery(Config node, ClusterConfig cluster, Config base) {
    if (!base.hasPath(BOOTSTRAP_PEKKO_SETTINGS)) {
      throw new IllegalStateException(
          "gateway.cluster.discovery is configured but dev.mcpsupervisor:"
              + "mcp-supervisor-cluster-bootstrap is not on the classpath: add it (the gateway's"
              + " jar has it), or list seedNodes instead");
    }
    ClusterConfig.Discovery discovery = cluster.discovery();
    List<String> extensions = new ArrayList<>(base.getStringList("pekko.extensions"));
    extensions.add(CLUSTER_BOOTSTRAP);
    String discoveryMethod = pekkoMethod(discovery.method());
    Config withBootstrap =
        node.withValue("pekko.cluster.seed-nodes", ConfigValueFactory.fromIterable(List.of()))
            .withValue("pekko.extensions", ConfigValueFactory.fromIterable(extensions))
            .withValue(
                "pekko.management.http.hostname", ConfigValueFactory.fromAnyRef(cluster.host()))
            .withValue(
                "pekko.management.http.port",
                ConfigValueFactory.fromAnyRef(discovery.managementPort()))
            // bound to the hostname above only
            .withValue("pekko.management.http.bind-hostname", ConfigValueFactory.fromAnyRef(""))
            .withValue(
                BOOTSTRAP + "contact-point-discovery.discovery-method",
                ConfigValueFactory.fromAnyRef(discoveryMethod))
            .withValue(
                BOOTSTRAP + "contact-point-discovery.service-name",
                ConfigValueFactory.fromAnyRef(discovery.serviceName()))
            .withValue(
                BOOTSTRAP + "contact-point-discovery.port-name",
                ConfigValueFactory.fromAnyRef(
                    discovery.portName() == null ? "" : discovery.portName()))
            .withValue(
                BOOTSTRAP + "contact-point-discovery.required-contact-point-nr",
                ConfigValueFactory.fromAnyRef(discovery.requiredContactPoints()))
            // a contact point discovery gives without a port is reached on the management port
            .withValue(
                BOOTSTRAP + "contact-point.fallback-port",
                ConfigValueFactory.fromAnyRef(discovery.managementPort()));
    if (discovery.method() == ClusterConfig.DiscoveryMethod.CONFIG) {
      List<Map<String, Object>> endpoints =
          discovery.endpoints().stream()
              .map(point -> Map.<String, Object>of("host", point.host(), "port", point.port()))
              .toList();
      withBootstrap =
          withBootstrap
              .withValue(
                  ConfigUtil.joinPath(
                      "pekko",
                      "discovery",
                      "config",
                      "services",
                      discovery.serviceName(),
                      "endpoints"),
                  ConfigValueFactory.fromIterable(endpoints))
              // each endpoint names its own port, which may differ from this node's
              .withValue(
                  BOOTSTRAP + "contact-point.filter-on-fallback-port",
                  ConfigValueFactory.fromAnyRef(false));
    }
    return withBootstrap.withFallback(base.getConfig(BOOTSTRAP_PEKKO_SETTINGS));
  }

  /** The method's name in pekko-discovery. */
  private static String pekkoMethod(ClusterConfig.DiscoveryMethod method) {
    return switch (method) {
      case KUBERNETES_API -> "kubernetes-api";
      case DNS -> "pekko-dns";
      case CONFIG -> "config";
    };
  }

  /**
   * Artery over TLS, each side showing a certificate the other's trust store accepts (mutual
   * authentication, from reference.conf). The stores are opened here first, so that a wrong path or
   * password stops the start with the field's name instead of failing each handshake later.
   */
  private static Config withTls(Config node, ClusterConfig.Tls tls) {
    open(tls.keyStore(), tls.password(), "gateway.cluster.tls.keyStore");
    open(tls.trustStore(), tls.password(), "gateway.cluster.tls.trustStore");
    return node.withValue(ARTERY + "transport", ConfigValueFactory.fromAnyRef("tls-tcp"))
        .withValue(SSL_ENGINE + "key-store", ConfigValueFactory.fromAnyRef(tls.keyStore()))
        .withValue(SSL_ENGINE + "trust-store", ConfigValueFactory.fromAnyRef(tls.trustStore()))
        .withValue(SSL_ENGINE + "key-store-password", ConfigValueFactory.fromAnyRef(tls.password()))
        .withValue(SSL_ENGINE + "key-password", ConfigValueFactory.fromAnyRef(tls.password()))
        .withValue(
            SSL_ENGINE + "trust-store-password", ConfigValueFactory.fromAnyRef(tls.password()));
  }

  /** Opens a key store as Pekko's ConfigSSLEngineProvider does (the JDK's default type). */
  private static void open(String path, String password, String field) {
    try (InputStream in = Files.newInputStream(Path.of(path))) {
      KeyStore.getInstance(KeyStore.getDefaultType()).load(in, password.toCharArray());
    } catch (IOException | GeneralSecurityException e) {
      // the password is never echoed
      throw new IllegalStateException(
          field + ": " + path + " cannot be opened with gateway.cluster.tls.password: " + e, e);
    }
  }

  @Override
  public Membership membership(ActorSystem<?> system) {
    return new ClusterMembership(Cluster.get(system));
  }
}
