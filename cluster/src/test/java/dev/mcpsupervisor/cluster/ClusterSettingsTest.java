package dev.mcpsupervisor.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cluster node's actor system name and Pekko settings, from the gateway's cluster section. */
class ClusterSettingsTest {

  private static final String SECRET = "a-shared-secret-of-32-characters!";

  private static final ClusterSettings SETTINGS = new ClusterSettings();

  private static ClusterConfig cluster(String secret) {
    return new ClusterConfig(
        "10.0.0.5",
        2552,
        List.of(
            new ClusterConfig.SeedNode("10.0.0.5", 2552),
            new ClusterConfig.SeedNode("fd00::6", 2553)),
        secret);
  }

  @Test
  void nodesOfOneSecretShareASystemNameAndOtherSecretsGetAnother() {
    String name = SETTINGS.systemName(cluster(SECRET));
    assertEquals(name, SETTINGS.systemName(cluster(SECRET)));
    assertTrue(name.matches("mcp-supervisor-[0-9a-f]{16}"), name);
    assertNotEquals(name, SETTINGS.systemName(cluster(SECRET + "x")));
    assertFalse(name.contains(SECRET), "the secret is never part of a name");
  }

  @Test
  void aNodeRunsTheClusterProviderOnItsOwnAddressWithTheSplitBrainResolver() {
    Config config = SETTINGS.actorSystemConfig(cluster(SECRET), ConfigFactory.load());
    String name = SETTINGS.systemName(cluster(SECRET));
    assertEquals("cluster", config.getString("pekko.actor.provider"));
    assertEquals("tcp", config.getString("pekko.remote.artery.transport"));
    assertEquals("10.0.0.5", config.getString("pekko.remote.artery.canonical.hostname"));
    assertEquals(2552, config.getInt("pekko.remote.artery.canonical.port"));
    assertEquals(
        "", config.getString("pekko.remote.artery.bind.hostname"), "bound to the canonical host");
    assertEquals(
        List.of("pekko://" + name + "@10.0.0.5:2552", "pekko://" + name + "@[fd00::6]:2553"),
        config.getStringList("pekko.cluster.seed-nodes"));
    assertEquals(
        "org.apache.pekko.cluster.sbr.SplitBrainResolverProvider",
        config.getString("pekko.cluster.downing-provider-class"));
    assertEquals(
        "keep-majority", config.getString("pekko.cluster.split-brain-resolver.active-strategy"));
    assertEquals(
        "jackson-cbor",
        config.getString(
            "pekko.actor.serialization-bindings.\"dev.mcpsupervisor.protocol.CrossNode\""));
    assertFalse(config.root().render().contains(SECRET), "the secret is in no setting");
  }

  private static ClusterConfig discovering(ClusterConfig.DiscoveryMethod method) {
    return new ClusterConfig(
        "10.0.0.5",
        2552,
        List.of(),
        new ClusterConfig.Discovery(
            method,
            "gw",
            3,
            null,
            8558,
            method == ClusterConfig.DiscoveryMethod.CONFIG
                ? List.of(
                    new ClusterConfig.ContactPoint("10.0.0.5", 8558),
                    new ClusterConfig.ContactPoint("10.0.0.6", 8558))
                : List.of()),
        null,
        SECRET);
  }

  /** The defaults with the bootstrap artifact's settings, as when it is on the classpath. */
  private static Config withBootstrapArtifact() {
    return ConfigFactory.parseString(
            ClusterSettings.BOOTSTRAP_PEKKO_SETTINGS + ".pekko.fail-mixed-versions = off")
        .withFallback(ConfigFactory.load());
  }

  @Test
  void discoveryStartsClusterBootstrapWithTheManagementEndpointOnTheClustersHostOnly() {
    Config config =
        SETTINGS.actorSystemConfig(
            discovering(ClusterConfig.DiscoveryMethod.CONFIG), withBootstrapArtifact());
    assertEquals(List.of(), config.getStringList("pekko.cluster.seed-nodes"));
    assertTrue(
        config
            .getStringList("pekko.extensions")
            .contains("org.apache.pekko.management.cluster.bootstrap.ClusterBootstrap"));
    assertEquals("10.0.0.5", config.getString("pekko.management.http.hostname"));
    assertEquals("", config.getString("pekko.management.http.bind-hostname"), "that host only");
    assertEquals(8558, config.getInt("pekko.management.http.port"));
    String discovery = "pekko.management.cluster.bootstrap.contact-point-discovery.";
    assertEquals("config", config.getString(discovery + "discovery-method"));
    assertEquals("gw", config.getString(discovery + "service-name"));
    assertEquals(3, config.getInt(discovery + "required-contact-point-nr"));
    assertEquals("", config.getString(discovery + "port-name"));
    assertEquals(
        8558, config.getInt("pekko.management.cluster.bootstrap.contact-point.fallback-port"));
    assertEquals(
        List.of("10.0.0.5", "10.0.0.6"),
        config.getConfigList("pekko.discovery.config.services.gw.endpoints").stream()
            .map(endpoint -> endpoint.getString("host"))
            .toList());
    assertFalse(
        config.getBoolean(
            "pekko.management.cluster.bootstrap.contact-point.filter-on-fallback-port"),
        "each endpoint's own port");
    assertFalse(config.getBoolean("pekko.fail-mixed-versions"), "the artifact's settings apply");
    assertEquals(
        "pekko-dns",
        SETTINGS
            .actorSystemConfig(
                discovering(ClusterConfig.DiscoveryMethod.DNS), withBootstrapArtifact())
            .getString(discovery + "discovery-method"));
  }

  @Test
  void discoveryWithoutTheBootstrapArtifactStopsTheStartNamingIt() {
    IllegalStateException error =
        assertThrows(
            IllegalStateException.class,
            () ->
                SETTINGS.actorSystemConfig(
                    discovering(ClusterConfig.DiscoveryMethod.KUBERNETES_API),
                    ConfigFactory.load()));
    assertEquals(
        "gateway.cluster.discovery is configured but"
            + " dev.mcpsupervisor:mcp-supervisor-cluster-bootstrap is not on the classpath: add it"
            + " (the gateway's jar has it), or list seedNodes instead",
        error.getMessage());
  }

  @Test
  void tlsRunsArteryOverTlsWithMutualAuthentication(@TempDir Path dir) throws Exception {
    Path store = emptyStore(dir.resolve("store.p12"), "pass-word");
    ClusterConfig.Tls tls = new ClusterConfig.Tls(store.toString(), store.toString(), "pass-word");
    Config config = SETTINGS.actorSystemConfig(withTls(tls), ConfigFactory.load());
    String engine = "pekko.remote.artery.ssl.config-ssl-engine.";
    assertEquals("tls-tcp", config.getString("pekko.remote.artery.transport"));
    assertEquals(store.toString(), config.getString(engine + "key-store"));
    assertEquals(store.toString(), config.getString(engine + "trust-store"));
    assertEquals("pass-word", config.getString(engine + "key-store-password"));
    assertEquals("pass-word", config.getString(engine + "trust-store-password"));
    assertEquals("pass-word", config.getString(engine + "key-password"));
    assertTrue(config.getBoolean(engine + "require-mutual-authentication"));
    assertFalse(config.getBoolean(engine + "hostname-verification"));
  }

  @Test
  void aKeyStoreThatDoesNotOpenStopsTheStartNamingTheFieldNotThePassword(@TempDir Path dir)
      throws Exception {
    Path store = emptyStore(dir.resolve("store.p12"), "pass-word");
    IllegalStateException wrong =
        assertThrows(
            IllegalStateException.class,
            () ->
                SETTINGS.actorSystemConfig(
                    withTls(
                        new ClusterConfig.Tls(store.toString(), store.toString(), "guess-word")),
                    ConfigFactory.load()));
    assertTrue(
        wrong.getMessage().startsWith("gateway.cluster.tls.keyStore: " + store + " cannot be"),
        wrong.getMessage());
    assertFalse(wrong.getMessage().contains("guess-word"));
    IllegalStateException missing =
        assertThrows(
            IllegalStateException.class,
            () ->
                SETTINGS.actorSystemConfig(
                    withTls(
                        new ClusterConfig.Tls(
                            store.toString(), dir.resolve("none.p12").toString(), "pass-word")),
                    ConfigFactory.load()));
    assertTrue(
        missing.getMessage().startsWith("gateway.cluster.tls.trustStore: "), missing.getMessage());
  }

  @Test
  void aNonLoopbackNodeWithoutTlsIsWarnedOnceLoopbackOrTlsIsNot() {
    assertEquals(
        Optional.of(
            "gateway.cluster.host 10.0.0.5 is not a loopback address and gateway.cluster.tls is not"
                + " set: node traffic is neither encrypted nor authenticated, and whoever reaches"
                + " port 2552 can join the cluster and read its sessions' traffic; set"
                + " gateway.cluster.tls (docs/operations.md, Scaling out)"),
        ClusterSettings.plainTrafficWarning(cluster(SECRET)));
    assertEquals(
        Optional.empty(),
        ClusterSettings.plainTrafficWarning(
            new ClusterConfig("127.0.0.1", 2552, List.of(), SECRET)));
    assertEquals(
        Optional.empty(),
        ClusterSettings.plainTrafficWarning(withTls(new ClusterConfig.Tls("/k", "/t", "p"))));
  }

  private static ClusterConfig withTls(ClusterConfig.Tls tls) {
    ClusterConfig plain = cluster(SECRET);
    return new ClusterConfig(plain.host(), plain.port(), plain.seedNodes(), null, tls, SECRET);
  }

  private static Path emptyStore(Path path, String password) throws Exception {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    try (OutputStream out = Files.newOutputStream(path)) {
      store.store(out, password.toCharArray());
    }
    return path;
  }

  @Test
  void withoutAClusterTheDefaultsKeepTheLocalProvider() {
    assertEquals("local", ConfigFactory.load().getString("pekko.actor.provider"));
  }
}
