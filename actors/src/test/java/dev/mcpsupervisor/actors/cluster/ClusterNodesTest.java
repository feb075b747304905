package dev.mcpsupervisor.actors.cluster;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.base.SupervisorObserver;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.upstream.DefaultConnectors;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The actors module alone (a plain embedding): no cluster on its classpath. */
class ClusterNodesTest {

  @Test
  void aPlainEmbeddingCarriesNoPekkoClusterOrRemoting() {
    for (String name :
        List.of(
            "org.apache.pekko.cluster.Cluster",
            "org.apache.pekko.remote.RemoteActorRefProvider",
            "org.apache.pekko.cluster.ddata.Replicator",
            "org.apache.pekko.serialization.jackson.JacksonCborSerializer")) {
      assertThrows(ClassNotFoundException.class, () -> Class.forName(name), name);
    }
  }

  @Test
  void aClusterSectionWithoutTheClusterModuleFailsAtStartNamingTheArtifact() {
    ClusterConfig cluster =
        new ClusterConfig(
            "127.0.0.1",
            25520,
            List.of(new ClusterConfig.SeedNode("127.0.0.1", 25520)),
            "a-shared-secret-of-32-characters!");
    GatewayConfig gateway =
        GatewayConfig.builder()
            .host("127.0.0.1")
            .port(0)
            .maxBodyBytes(1024)
            .sessionIdleTimeout(Duration.ofMinutes(1))
            .build()
            .withCluster(cluster);
    IllegalStateException refused =
        assertThrows(
            IllegalStateException.class,
            () ->
                SessionSupervisor.start(
                    new SupervisorConfig(Map.of(), gateway),
                    DefaultConnectors.create(),
                    SupervisorObserver.NONE));
    assertTrue(
        refused.getMessage().contains("dev.mcpsupervisor:mcp-supervisor-cluster"),
        refused.getMessage());
  }
}
