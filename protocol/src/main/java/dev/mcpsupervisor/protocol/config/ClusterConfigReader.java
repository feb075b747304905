package dev.mcpsupervisor.protocol.config;

import com.typesafe.config.Config;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the gateway's {@code cluster} section. The secret is never echoed in errors, only its
 * length.
 */
final class ClusterConfigReader {

  static final String CLUSTER = "cluster";

  static final String HOST = "host";
  static final String PORT = "port";
  static final String SEED_NODES = "seedNodes";
  static final String SECRET = "secret";

  private static final FieldRules RULES =
      new FieldRules(
          List.of(HOST, PORT, SEED_NODES, SECRET),
          Set.of(),
          Map.of(
              "seeds", "write the seed nodes as seedNodes = [\"host:port\", ...]",
              "roles", "every node has the same role; roles are not configurable"));

  private static final int MAX_PORT = 65_535;

  /** {@code host:port}, {@code [v6]:port}. */
  private static final Pattern SEED =
      Pattern.compile("(\\[[0-9a-fA-F:.]+]|[^:\\[\\]/\\s]+):(\\d{1,5})");

  private ClusterConfigReader() {}

  /**
   * @param gateway the file's gateway section
   * @param defaults the defaults of the optional cluster fields
   * @param gatewayHost the gateway's host, the default of the cluster's
   * @return null when the gateway section has no cluster section
   */
  static ClusterConfig read(ConfigSection gateway, Config defaults, String gatewayHost) {
    ConfigSection file = gateway.section(CLUSTER);
    if (file == null) {
      return null;
    }
    RULES.check(file);
    if (!file.has(SECRET)) {
      throw file.error(
          SECRET,
          "missing: every node of the cluster must share a secret of at least "
              + ClusterConfig.MIN_SECRET_LENGTH
              + " characters; set secret = ${MCP_SUPERVISOR_CLUSTER_SECRET} with e.g. openssl"
              + " rand -base64 32 as its value");
    }
    ConfigSection cluster = file.withDefaults(defaults);
    return new ClusterConfig(
        cluster.has(HOST) ? cluster.nonEmptyString(HOST) : gatewayHost,
        cluster.integer(PORT, 0, MAX_PORT),
        seedNodes(cluster),
        secret(cluster));
  }

  private static String secret(ConfigSection cluster) {
    String secret = cluster.string(SECRET);
    // the secret itself is never echoed
    if (secret.length() < ClusterConfig.MIN_SECRET_LENGTH) {
      throw cluster.error(
          SECRET,
          "must be at least "
              + ClusterConfig.MIN_SECRET_LENGTH
              + " characters, this one has "
              + secret.length()
              + " (e.g. openssl rand -base64 32)");
    }
    return secret;
  }

  private static List<ClusterConfig.SeedNode> seedNodes(ConfigSection cluster) {
    List<String> texts = cluster.stringList(SEED_NODES);
    if (texts.isEmpty()) {
      throw cluster.error(
          SEED_NODES,
          "must list at least one node as \"host:port\" (its Artery address); the first node lists"
              + " itself first");
    }
    List<ClusterConfig.SeedNode> seeds = new ArrayList<>();
    for (int i = 0; i < texts.size(); i++) {
      String text = texts.get(i).strip();
      Matcher seed = SEED.matcher(text);
      int port = seed.matches() ? Integer.parseInt(seed.group(2)) : 0;
      if (port < 1 || port > MAX_PORT) {
        throw new ConfigException(
            cluster.origin(),
            cluster.path(SEED_NODES) + "[" + i + "]",
            "\""
                + text
                + "\" is not a node address (expected \"host:port\" with a port from 1 to "
                + MAX_PORT
                + ", e.g. \"10.0.0.5:25520\" or \"[fd00::5]:25520\")");
      }
      String host = seed.group(1);
      if (host.startsWith("[")) {
        host = host.substring(1, host.length() - 1);
      }
      seeds.add(new ClusterConfig.SeedNode(host, port));
    }
    return seeds;
  }
}
