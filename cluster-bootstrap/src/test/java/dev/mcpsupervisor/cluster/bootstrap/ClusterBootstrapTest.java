package dev.mcpsupervisor.cluster.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.base.SupervisorObserver;
import dev.mcpsupervisor.actors.cluster.Membership;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.upstream.DefaultConnectors;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.Test;

/**
 * Nodes that find each other through Cluster Bootstrap with the {@code config} method
 * (gateway.cluster.discovery) and no seed nodes: three form one cluster, and one restarted on new
 * ports joins it again.
 */
class ClusterBootstrapTest {

  private static final String SECRET = "a-shared-secret-of-32-characters!";

  /** Bootstrap waits for its contact points to stay the same 5 s (stable-margin) before forming. */
  private static final Duration FORMATION = Duration.ofSeconds(90);

  @Test
  void threeNodesWithConfigDiscoveryFormOneClusterAndARestartedOneOnNewPortsRejoins()
      throws Exception {
    List<Integer> managementPorts = List.of(freePort(), freePort(), freePort());
    List<ClusterConfig.ContactPoint> endpoints =
        managementPorts.stream()
            .map(port -> new ClusterConfig.ContactPoint("127.0.0.1", port))
            .toList();
    List<SessionSupervisor> nodes = new ArrayList<>();
    try {
      for (int managementPort : managementPorts) {
        nodes.add(node(freePort(), managementPort, endpoints));
      }
      TestProbe<Void> probe = TestProbe.create(nodes.get(0).actorSystem());
      awaitOneCluster(probe, nodes);

      // the management endpoint answers on the cluster's host: what bootstrap asks a contact point
      HttpResponse<String> seeds =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(
                              "http://127.0.0.1:"
                                  + managementPorts.get(0)
                                  + "/bootstrap/seed-nodes"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, seeds.statusCode(), seeds.body());
      assertTrue(seeds.body().contains(nodes.get(0).membership().selfAddress()), seeds.body());

      SessionSupervisor leaving = nodes.remove(2);
      String leftAddress = leaving.membership().selfAddress();
      leaving.shutdown().toCompletableFuture().get(60, TimeUnit.SECONDS);
      probe.awaitAssert(
          FORMATION,
          () -> {
            assertEquals(2, nodes.get(0).membership().members().size(), "the node left");
            return null;
          });

      // new Artery and management ports: found through the listed contact points still up
      SessionSupervisor restarted = node(freePort(), freePort(), endpoints);
      nodes.add(restarted);
      awaitOneCluster(probe, nodes);
      assertTrue(
          !restarted.membership().selfAddress().equals(leftAddress), "a new address rejoined");
    } finally {
      CompletableFuture.allOf(
              nodes.stream()
                  .map(node -> node.shutdown().toCompletableFuture())
                  .toArray(CompletableFuture[]::new))
          .get(60, TimeUnit.SECONDS);
    }
  }

  /** Every node sees all of them, and only them, up. */
  private static void awaitOneCluster(TestProbe<Void> probe, List<SessionSupervisor> nodes) {
    Set<String> addresses =
        nodes.stream().map(node -> node.membership().selfAddress()).collect(Collectors.toSet());
    probe.awaitAssert(
        FORMATION,
        () -> {
          for (SessionSupervisor node : nodes) {
            List<Membership.MemberView> members = node.membership().members();
            assertEquals(
                addresses,
                members.stream().map(Membership.MemberView::address).collect(Collectors.toSet()));
            members.forEach(member -> assertEquals("up", member.status(), member.toString()));
          }
          return null;
        });
  }

  private static SessionSupervisor node(
      int port, int managementPort, List<ClusterConfig.ContactPoint> endpoints) {
    ClusterConfig.Discovery discovery =
        new ClusterConfig.Discovery(
            ClusterConfig.DiscoveryMethod.CONFIG,
            "mcp-supervisor-test",
            endpoints.size(),
            null,
            managementPort,
            endpoints);
    ClusterConfig cluster =
        new ClusterConfig("127.0.0.1", port, List.of(), discovery, null, SECRET);
    Config base =
        ConfigFactory.parseString("pekko.loglevel = INFO").withFallback(ConfigFactory.load());
    return SessionSupervisor.start(
        new SupervisorConfig(
            Map.of(),
            GatewayConfig.builder()
                .host("127.0.0.1")
                .port(0)
                .maxBodyBytes(1024)
                .sessionIdleTimeout(Duration.ofMinutes(1))
                .build()
                .withCluster(cluster)),
        DefaultConnectors.create(),
        SupervisorObserver.NONE,
        base);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
