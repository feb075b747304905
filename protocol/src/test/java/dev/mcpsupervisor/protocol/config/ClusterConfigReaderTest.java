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
            + " address); the first node lists itself first");
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
