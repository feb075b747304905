package dev.mcpsupervisor.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Artery over TLS with mutual authentication (gateway.cluster.tls): nodes whose certificates come
 * from the trusted authority form a cluster; a node with another authority's certificate, or none
 * (plain TCP), never joins it.
 */
class ClusterTlsTest {

  private static final String SECRET = "a-shared-secret-of-32-characters!";

  private static final Duration FORMATION = Duration.ofSeconds(60);

  /** How long a refused node is watched not joining. */
  private static final Duration NOT_JOINING = Duration.ofSeconds(10);

  @TempDir static Path dir;

  private static ClusterConfig.Tls trusted;
  private static ClusterConfig.Tls foreign;

  @BeforeAll
  static void certificates() throws Exception {
    TestCertificates certificates = new TestCertificates(dir);
    TestCertificates.Authority ours = certificates.authority("ca-ours");
    TestCertificates.Authority theirs = certificates.authority("ca-theirs");
    String trust = ours.trustStore().toString();
    trusted =
        new ClusterConfig.Tls(
            certificates.node("node", ours).toString(), trust, TestCertificates.PASSWORD);
    // it trusts our authority: only its own certificate, from another, keeps it out
    foreign =
        new ClusterConfig.Tls(
            certificates.node("stranger", theirs).toString(), trust, TestCertificates.PASSWORD);
  }

  @Test
  void nodesOfTheTrustedAuthorityFormAClusterThatAnotherAuthorityAndPlainTcpCannotJoin()
      throws Exception {
    List<SessionSupervisor> nodes = new ArrayList<>();
    try {
      int seedPort = freePort();
      ClusterConfig.SeedNode seed = new ClusterConfig.SeedNode("127.0.0.1", seedPort);
      nodes.add(node(seedPort, seed, trusted));
      nodes.add(node(freePort(), seed, trusted));
      nodes.add(node(freePort(), seed, trusted));
      TestProbe<Void> probe = TestProbe.create(nodes.get(0).actorSystem());
      probe.awaitAssert(
          FORMATION,
          () -> {
            for (SessionSupervisor node : nodes) {
              assertEquals(List.of("up", "up", "up"), statuses(node.membership()), "formed");
            }
            return null;
          });

      SessionSupervisor stranger = node(freePort(), seed, foreign);
      nodes.add(stranger);
      SessionSupervisor plain = node(freePort(), seed, null);
      nodes.add(plain);
      long until = System.nanoTime() + NOT_JOINING.toNanos();
      while (System.nanoTime() < until) {
        assertEquals(3, nodes.get(0).membership().members().size(), "nobody else joined");
        assertFalse(stranger.membership().isUp(), "another authority's certificate");
        assertFalse(plain.membership().isUp(), "plain TCP");
        // a probe's period, not a wait for something to happen: the state must not change
        TimeUnit.MILLISECONDS.sleep(250);
      }
    } finally {
      CompletableFuture.allOf(
              nodes.stream()
                  .map(node -> node.shutdown().toCompletableFuture())
                  .toArray(CompletableFuture[]::new))
          .get(60, TimeUnit.SECONDS);
    }
  }

  private static List<String> statuses(Membership membership) {
    return membership.members().stream().map(Membership.MemberView::status).toList();
  }

  private static SessionSupervisor node(
      int port, ClusterConfig.SeedNode seed, ClusterConfig.Tls tls) {
    ClusterConfig cluster = new ClusterConfig("127.0.0.1", port, List.of(seed), null, tls, SECRET);
    Config base =
        ConfigFactory.parseString("pekko.loglevel = WARNING").withFallback(ConfigFactory.load());
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
