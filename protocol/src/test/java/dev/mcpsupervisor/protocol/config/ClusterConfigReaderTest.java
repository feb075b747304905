package dev.mcpsupervisor.protocol.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The gateway's cluster section, read and validated; its secret never echoed. */
class ClusterConfigReaderTest {

  private static final String SECRET = "s3cr3t-".repeat(5);

  @Test
  void withoutAClusterSectionTheGatewayIsASingleNode() {
    assertNull(load("").cluster());
  }

  @Test
  void aClusterSectionTakesItsDefaultsAndTheGatewaysHost() {
    ClusterConfig cluster =
        load("host = \"127.0.0.2\", cluster { seedNodes = [\"127.0.0.2:25520\"], secret = \""
                + SECRET
                + "\" }")
            .cluster();
    assertEquals("127.0.0.2", cluster.host(), "the host defaults to the gateway's");
    assertEquals(
        ConfigLoader.reference().getConfig(ConfigLoader.CLUSTER_DEFAULTS).getInt("port"),
        cluster.port());
    assertEquals(List.of(new ClusterConfig.SeedNode("127.0.0.2", 25520)), cluster.seedNodes());
    assertEquals(SECRET, cluster.secret());
  }

  @Test
  void seedNodesAreHostsAndPortsIpv6InBrackets() {
    ClusterConfig cluster =
        load("cluster { host = \"10.0.0.5\", port = 2552, seedNodes = [\"10.0.0.5:2552\","
                + " \"[fd00::6]:2553\", \"node-3.gw.svc:2554\"], secret = \""
                + SECRET
                + "\" }")
            .cluster();
    assertEquals("10.0.0.5", cluster.host());
    assertEquals(2552, cluster.port());
    assertEquals(
        List.of(
            new ClusterConfig.SeedNode("10.0.0.5", 2552),
            new ClusterConfig.SeedNode("fd00::6", 2553),
            new ClusterConfig.SeedNode("node-3.gw.svc", 2554)),
        cluster.seedNodes());
    assertEquals("[fd00::6]:2553", cluster.seedNodes().get(1).toString());
  }

  @Test
  void theSecretComesFromTheEnvironmentAsElsewhere() {
    // PATH is set wherever the tests run; its value stands for a secret from the environment
    String path = System.getenv("PATH");
    String secret = path.length() >= 32 ? path : path + "x".repeat(32);
    String suffix = path.length() >= 32 ? "" : "\"" + "x".repeat(32) + "\"";
    ClusterConfig cluster =
        load("cluster { seedNodes = [\"127.0.0.1:25520\"], secret = ${PATH}" + suffix + " }")
            .cluster();
    assertEquals(secret, cluster.secret());
  }

  @Test
  void aMissingSecretIsRefusedInOneLineNamingTheFix() {
    ConfigException error =
        assertThrows(
            ConfigException.class, () -> load("cluster { seedNodes = [\"127.0.0.1:25520\"] }"));
    assertEquals(
        "t.conf: gateway.cluster.secret: missing: every node of the cluster must share a secret of"
            + " at least 32 characters; set secret = ${MCP_SUPERVISOR_CLUSTER_SECRET} with e.g."
            + " openssl rand -base64 32 as its value",
        error.getMessage());
    assertFalse(error.getMessage().contains("\n"), "one line");
  }

  @Test
  void aShortSecretIsRefusedWithoutEchoingIt() {
    ConfigException error =
        assertThrows(
            ConfigException.class,
            () -> load("cluster { seedNodes = [\"127.0.0.1:25520\"], secret = \"hunter2\" }"));
    assertEquals(
        "t.conf: gateway.cluster.secret: must be at least 32 characters, this one has 7 (e.g."
            + " openssl rand -base64 32)",
        error.getMessage());
  }

  @Test
  void badSeedNodesAndFieldsAreRefused() {
    String secret = ", secret = \"" + SECRET + "\"";
    assertError(
        "cluster { seedNodes = []" + secret + " }",
        "gateway.cluster.seedNodes: must list at least one node as \"host:port\" (its Artery"
            + " address; the first node lists itself first), or set discovery instead");
    assertError(
        "cluster { port = 25520" + secret + " }",
        "gateway.cluster.seedNodes: must list at least one node as \"host:port\" (its Artery"
            + " address; the first node lists itself first), or set discovery instead");
    assertError(
        "cluster { seedNodes = [\"127.0.0.1:25520\", \"pekko://x@h:1\"]" + secret + " }",
        "gateway.cluster.seedNodes[1]: \"pekko://x@h:1\" is not a node address (expected"
            + " \"host:port\" with a port from 1 to 65535, e.g. \"10.0.0.5:25520\" or"
            + " \"[fd00::5]:25520\")");
    assertError(
        "cluster { seedNodes = [\"h:0\"]" + secret + " }",
        "gateway.cluster.seedNodes[0]: \"h:0\" is not a node address (expected \"host:port\" with"
            + " a port from 1 to 65535, e.g. \"10.0.0.5:25520\" or \"[fd00::5]:25520\")");
    assertError(
        "cluster { seedNodes = [\"h:1\"], port = 70000" + secret + " }",
        "gateway.cluster.port: must be between 0 and 65535, got 70000");
    assertError(
        "cluster { seedNodes = [\"h:1\"], seeds = [\"h:1\"]" + secret + " }",
        "gateway.cluster.seeds: not supported; write the seed nodes as seedNodes ="
            + " [\"host:port\", ...]");
  }

  @Test
  void discoveryTakesTheDefaultsAndReplacesTheSeedNodes() {
    ClusterConfig cluster =
        load("cluster { host = \"10.0.0.5\", discovery { method = \"kubernetes-api\" }, secret = \""
                + SECRET
                + "\" }")
            .cluster();
    assertEquals(List.of(), cluster.seedNodes());
    assertEquals(
        new ClusterConfig.Discovery(
            ClusterConfig.DiscoveryMethod.KUBERNETES_API,
            "mcp-supervisor",
            2,
            null,
            7626,
            List.of()),
        cluster.discovery());
    assertNull(cluster.tls());
  }

  @Test
  void configDiscoveryListsTheManagementEndpoints() {
    ClusterConfig cluster =
        load("cluster { discovery { method = config, serviceName = gw, requiredContactPoints = 3,"
                + " managementPort = 8558, endpoints = [\"127.0.0.1:8558\", \"[::1]:8559\"] },"
                + " secret = \""
                + SECRET
                + "\" }")
            .cluster();
    assertEquals(
        new ClusterConfig.Discovery(
            ClusterConfig.DiscoveryMethod.CONFIG,
            "gw",
            3,
            null,
            8558,
            List.of(
                new ClusterConfig.ContactPoint("127.0.0.1", 8558),
                new ClusterConfig.ContactPoint("::1", 8559))),
        cluster.discovery());
    assertEquals("[::1]:8559", cluster.discovery().endpoints().get(1).toString());
  }

  @Test
  void badDiscoverySectionsAreRefused() {
    String secret = ", secret = \"" + SECRET + "\"";
    assertError(
        "cluster { seedNodes = [\"h:1\"], discovery { method = dns }" + secret + " }",
        "gateway.cluster: set either seedNodes (fixed addresses) or discovery (Cluster Bootstrap),"
            + " not both");
    assertError(
        "cluster { discovery { serviceName = x }" + secret + " }",
        "gateway.cluster.discovery.method: missing: one of \"kubernetes-api\", \"dns\","
            + " \"config\"");
    assertError(
        "cluster { discovery { method = consul }" + secret + " }",
        "gateway.cluster.discovery.method: \"consul\" is not one of \"kubernetes-api\","
            + " \"dns\", \"config\"");
    assertError(
        "cluster { discovery { method = config }" + secret + " }",
        "gateway.cluster.discovery.endpoints: missing: method \"config\" contacts the nodes listed"
            + " here, as \"host:managementPort\"");
    assertError(
        "cluster { discovery { method = config, endpoints = [] }" + secret + " }",
        "gateway.cluster.discovery.endpoints: must list at least one node's management endpoint"
            + " as \"host:port\"");
    assertError(
        "cluster { discovery { method = dns, endpoints = [\"h:1\"] }" + secret + " }",
        "gateway.cluster.discovery.endpoints: only for method \"config\"; dns finds the nodes");
    assertError(
        "cluster { discovery { method = config, endpoints = [\"h:1\"], portName = m }"
            + secret
            + " }",
        "gateway.cluster.discovery.portName: only for methods kubernetes-api and dns; config's"
            + " endpoints carry the port");
    assertError(
        "cluster { discovery { method = dns, requiredContactPoints = 0 }" + secret + " }",
        "gateway.cluster.discovery.requiredContactPoints: must be at least 1, got 0");
    assertError(
        "cluster { discovery { method = dns, managmentPort = 1 }" + secret + " }",
        "gateway.cluster.discovery.managmentPort: unknown field; did you mean"
            + " \"managementPort\"?");
  }

  @Test
  void tlsNamesBothStoresAndOnePasswordNeverPrinted() {
    ClusterConfig cluster =
        load("cluster { seedNodes = [\"h:1\"], tls { keyStore = /k.p12, trustStore = /t.p12,"
                + " password = \"store-password\" }, secret = \""
                + SECRET
                + "\" }")
            .cluster();
    assertEquals(new ClusterConfig.Tls("/k.p12", "/t.p12", "store-password"), cluster.tls());
    assertFalse(cluster.toString().contains("store-password"));
  }

  @Test
  void aTlsSectionWithoutItsPasswordIsRefusedNamingTheField() {
    String secret = ", secret = \"" + SECRET + "\"";
    assertError(
        "cluster { seedNodes = [\"h:1\"], tls { keyStore = /k, trustStore = /t }" + secret + " }",
        "gateway.cluster.tls.password: missing: the password of both key stores; set password ="
            + " ${MCP_SUPERVISOR_CLUSTER_TLS_PASSWORD}, never the password itself");
    assertError(
        "cluster { seedNodes = [\"h:1\"], tls { keyStore = /k, password = p }" + secret + " }",
        "gateway.cluster.tls.trustStore: missing: the path of a PKCS #12 key store");
    assertError(
        "cluster { seedNodes = [\"h:1\"], tls { keyStore = /k, trustStore = /t, password = p,"
            + " trustStorePassword = q }"
            + secret
            + " }",
        "gateway.cluster.tls.trustStorePassword: not supported; both stores and the key open with"
            + " the one password");
  }

  @Test
  void theSecretIsNeverPrinted() {
    GatewayConfig gateway =
        load("cluster { seedNodes = [\"127.0.0.1:25520\"], secret = \"" + SECRET + "\" }");
    assertFalse(gateway.toString().contains(SECRET));
    assertFalse(gateway.cluster().toString().contains(SECRET));
    assertEquals(gateway.cluster(), gateway.withAddress("0.0.0.0", 1).cluster());
  }

  private static void assertError(String gatewayFields, String expected) {
    ConfigException error = assertThrows(ConfigException.class, () -> load(gatewayFields));
    assertEquals("t.conf: " + expected, error.getMessage());
  }

  private static GatewayConfig load(String gatewayFields) {
    return ConfigLoader.parse(
            "mcpServers { one { command = x } }\ngateway { " + gatewayFields + " }", "t.conf")
        .gateway();
  }
}
