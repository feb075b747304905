package dev.mcpsupervisor.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.mcpsupervisor.actors.cluster.ClusterNodes;
import dev.mcpsupervisor.actors.cluster.Membership;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import java.util.HexFormat;
import java.util.List;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * The actor system of one node of a cluster: its name, and its Pekko configuration (the cluster
 * provider, Artery bound to the configured host only, the seed nodes, the split-brain resolver and
 * the CBOR binding of cross-node messages, from {@code mcp-supervisor.cluster-pekko} in
 * reference.conf). The supervisor finds it as its {@link ClusterNodes} (META-INF/services).
 *
 * <p>The shared secret keeps clusters apart through the system name: it is {@code
 * mcp-supervisor-<fingerprint>}, the fingerprint an HMAC-SHA256 under the secret. Artery drops a
 * handshake addressed to another system name, and the seed addresses carry this node's own name, so
 * a node of another secret never associates with this cluster, let alone joins it. The secret
 * itself is in no setting, no address and no log line; the fingerprint is (it travels in clear in
 * every Artery frame), so this separates clusters, it does not authenticate a node: see
 * docs/architecture.md.
 */
public final class ClusterSettings implements ClusterNodes {

  /** Where reference.conf keeps Pekko's settings of a cluster node. */
  public static final String PEKKO_SETTINGS = "mcp-supervisor.cluster-pekko";

  /** Hex characters of the fingerprint in the system name: 64 bits. */
  private static final int FINGERPRINT_HEX = 16;

  /** What the HMAC signs: fixed, so the fingerprint depends on the secret alone. */
  private static final String FINGERPRINT_INPUT = "mcp-supervisor cluster name v1";

  /** {@code mcp-supervisor-<16 hex>}, the same on every node that shares the secret. */
  @Override
  public String systemName(ClusterConfig cluster) {
    byte[] tag = cluster.derivedKey(FINGERPRINT_INPUT);
    return SYSTEM_NAME + "-" + HexFormat.of().formatHex(tag).substring(0, FINGERPRINT_HEX);
  }

  @Override
  public Config actorSystemConfig(ClusterConfig cluster, Config base) {
    String name = systemName(cluster);
    List<String> seeds =
        cluster.seedNodes().stream().map(seed -> "pekko://" + name + "@" + seed).toList();
    Config node =
        ConfigFactory.empty()
            .withValue(
                "pekko.remote.artery.canonical.hostname",
                ConfigValueFactory.fromAnyRef(cluster.host()))
            .withValue(
                "pekko.remote.artery.canonical.port", ConfigValueFactory.fromAnyRef(cluster.port()))
            // bound to the configured address only, never to every interface
            .withValue("pekko.remote.artery.bind.hostname", ConfigValueFactory.fromAnyRef(""))
            .withValue("pekko.cluster.seed-nodes", ConfigValueFactory.fromIterable(seeds));
    return node.withFallback(base.getConfig(PEKKO_SETTINGS)).withFallback(base);
  }

  @Override
  public Membership membership(ActorSystem<?> system) {
    return new ClusterMembership(Cluster.get(system));
  }
}
