package dev.mcpsupervisor.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

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

  @Test
  void withoutAClusterTheDefaultsKeepTheLocalProvider() {
    assertEquals("local", ConfigFactory.load().getString("pekko.actor.provider"));
  }
}
