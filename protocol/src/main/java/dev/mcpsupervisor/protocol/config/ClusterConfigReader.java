package dev.mcpsupervisor.protocol.config;

import com.typesafe.config.Config;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
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
  static final String DISCOVERY = "discovery";
  static final String TLS = "tls";
  static final String SECRET = "secret";

  static final String METHOD = "method";
  static final String SERVICE_NAME = "serviceName";
  static final String REQUIRED_CONTACT_POINTS = "requiredContactPoints";
  static final String PORT_NAME = "portName";
  static final String MANAGEMENT_PORT = "managementPort";
  static final String ENDPOINTS = "endpoints";

  static final String KEY_STORE = "keyStore";
  static final String TRUST_STORE = "trustStore";
  static final String PASSWORD = "password";

  private static final FieldRules RULES =
      new FieldRules(
          List.of(HOST, PORT, SEED_NODES, DISCOVERY, TLS, SECRET),
          Set.of(),
          Map.of(
              "seeds", "write the seed nodes as seedNodes = [\"host:port\", ...]",
              "roles", "every node has the same role; roles are not configurable"));

  private static final FieldRules DISCOVERY_RULES =
      new FieldRules(
          List.of(
              METHOD, SERVICE_NAME, REQUIRED_CONTACT_POINTS, PORT_NAME, MANAGEMENT_PORT, ENDPOINTS),
          Set.of(),
          Map.of());

  private static final FieldRules TLS_RULES =
      new FieldRules(
          List.of(KEY_STORE, TRUST_STORE, PASSWORD),
          Set.of(),
          Map.of(
              "keyStorePassword", "both stores and the key open with the one password",
              "trustStorePassword", "both stores and the key open with the one password"));

  private static final int MAX_PORT = 65_535;

  /** {@code host:port}, {@code [v6]:port}. */
  private static final Pattern ADDRESS =
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
    // the defaults hold a discovery object too: whether the file set one is read from the file
    ConfigSection discovery = file.section(DISCOVERY);
    if (discovery != null && file.has(SEED_NODES)) {
      throw file.error(
          "set either seedNodes (fixed addresses) or discovery (Cluster Bootstrap), not both");
    }
    ConfigSection tls = file.section(TLS);
    return new ClusterConfig(
        cluster.has(HOST) ? cluster.nonEmptyString(HOST) : gatewayHost,
        cluster.integer(PORT, 0, MAX_PORT),
        discovery == null ? seedNodes(cluster) : List.of(),
        discovery == null ? null : discovery(discovery, defaults.getConfig(DISCOVERY)),
        tls == null ? null : tls(tls),
        secret(cluster));
  }

  private static ClusterConfig.Discovery discovery(ConfigSection file, Config defaults) {
    DISCOVERY_RULES.check(file);
    if (!file.has(METHOD)) {
      throw file.error(METHOD, "missing: one of " + methodNames());
    }
    String name = file.string(METHOD);
    ClusterConfig.DiscoveryMethod method = null;
    for (ClusterConfig.DiscoveryMethod candidate : ClusterConfig.DiscoveryMethod.values()) {
      if (candidate.configName().equals(name)) {
        method = candidate;
      }
    }
    if (method == null) {
      throw file.error(METHOD, "\"" + name + "\" is not one of " + methodNames());
    }
    boolean listed = method == ClusterConfig.DiscoveryMethod.CONFIG;
    if (listed && !file.has(ENDPOINTS)) {
      throw file.error(
          ENDPOINTS,
          "missing: method \"config\" contacts the nodes listed here, as \"host:managementPort\"");
    }
    if (!listed && file.has(ENDPOINTS)) {
      throw file.error(ENDPOINTS, "only for method \"config\"; " + name + " finds the nodes");
    }
    if (listed && file.has(PORT_NAME)) {
      throw file.error(
          PORT_NAME, "only for methods kubernetes-api and dns; config's endpoints carry the port");
    }
    ConfigSection discovery = file.withDefaults(defaults);
    List<ClusterConfig.ContactPoint> endpoints = new ArrayList<>();
    if (listed) {
      addresses(
          discovery,
          ENDPOINTS,
          "must list at least one node's management endpoint as \"host:port\"",
          (host, port) -> endpoints.add(new ClusterConfig.ContactPoint(host, port)));
    }
    return new ClusterConfig.Discovery(
        method,
        discovery.nonEmptyString(SERVICE_NAME),
        discovery.integer(REQUIRED_CONTACT_POINTS, 1, Integer.MAX_VALUE),
        discovery.optionalNonEmptyString(PORT_NAME),
        discovery.integer(MANAGEMENT_PORT, 1, MAX_PORT),
        endpoints);
  }

  private static String methodNames() {
    List<String> names = new ArrayList<>();
    for (ClusterConfig.DiscoveryMethod method : ClusterConfig.DiscoveryMethod.values()) {
      names.add("\"" + method.configName() + "\"");
    }
    return String.join(", ", names);
  }

  private static ClusterConfig.Tls tls(ConfigSection tls) {
    TLS_RULES.check(tls);
    for (String field : List.of(KEY_STORE, TRUST_STORE)) {
      if (!tls.has(field)) {
        throw tls.error(field, "missing: the path of a PKCS #12 key store");
      }
    }
    if (!tls.has(PASSWORD)) {
      throw tls.error(
          PASSWORD,
          "missing: the password of both key stores; set password ="
              + " ${MCP_SUPERVISOR_CLUSTER_TLS_PASSWORD}, never the password itself");
    }
    // the password itself is never echoed
    return new ClusterConfig.Tls(
        tls.nonEmptyString(KEY_STORE),
        tls.nonEmptyString(TRUST_STORE),
        tls.nonEmptyString(PASSWORD));
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
    List<ClusterConfig.SeedNode> seeds = new ArrayList<>();
    addresses(
        cluster,
        SEED_NODES,
        "must list at least one node as \"host:port\" (its Artery address; the first node lists"
            + " itself first), or set discovery instead",
        (host, port) -> seeds.add(new ClusterConfig.SeedNode(host, port)));
    return seeds;
  }

  /** Each {@code "host:port"} of a non-empty list, to {@code address}, in order. */
  private static void addresses(
      ConfigSection section, String field, String whenEmpty, BiConsumer<String, Integer> address) {
    List<String> texts = section.stringList(field);
    if (texts.isEmpty()) {
      throw section.error(field, whenEmpty);
    }
    for (int i = 0; i < texts.size(); i++) {
      String text = texts.get(i).strip();
      Matcher matched = ADDRESS.matcher(text);
      int port = matched.matches() ? Integer.parseInt(matched.group(2)) : 0;
      if (port < 1 || port > MAX_PORT) {
        throw new ConfigException(
            section.origin(),
            section.path(field) + "[" + i + "]",
            "\""
                + text
                + "\" is not a node address (expected \"host:port\" with a port from 1 to "
                + MAX_PORT
                + ", e.g. \"10.0.0.5:25520\" or \"[fd00::5]:25520\")");
      }
      String host = matched.group(1);
      if (host.startsWith("[")) {
        host = host.substring(1, host.length() - 1);
      }
      address.accept(host, port);
    }
  }
}
