package dev.mcpsupervisor.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.base.SupervisorObserver;
import dev.mcpsupervisor.actors.cluster.Membership;
import dev.mcpsupervisor.protocol.CrossNode;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.upstream.DefaultConnectors;
import java.io.IOException;
import java.io.NotSerializableException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.LocalActorRefProvider;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializers;
import org.apache.pekko.serialization.jackson.JacksonCborSerializer;
import org.junit.jupiter.api.Test;

/** A supervisor as one node of a cluster, and as a single node (no cluster section). */
class ClusterNodeTest {

  private static final String SECRET = "a-shared-secret-of-32-characters!";

  private static final ClusterSettings SETTINGS = new ClusterSettings();

  /** A message that may cross nodes, as later ones will. */
  record Crossing(String session, long sequence) implements CrossNode {}

  /** A message that stays on its node. */
  record Local(String session) {}

  private static GatewayConfig gateway() {
    return GatewayConfig.builder()
        .host("127.0.0.1")
        .port(0)
        .maxBodyBytes(1024)
        .sessionIdleTimeout(Duration.ofMinutes(1))
        .build();
  }

  @Test
  void withoutAClusterSectionTheSupervisorIsASingleNodeOnTheLocalProvider() throws Exception {
    SessionSupervisor supervisor =
        SessionSupervisor.start(
            new SupervisorConfig(Map.of(), gateway()),
            DefaultConnectors.create(),
            SupervisorObserver.NONE);
    try {
      ExtendedActorSystem system = (ExtendedActorSystem) supervisor.actorSystem().classicSystem();
      assertTrue(system.provider() instanceof LocalActorRefProvider, "no cluster provider");
      assertEquals("mcp-supervisor", system.name());
      assertSame(Membership.SINGLE_NODE, supervisor.membership());
      assertTrue(supervisor.membership().isUp());
      assertEquals(List.of(), supervisor.membership().members());
    } finally {
      supervisor.shutdown().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aNodeThatListsItselfFirstFormsAClusterAndCrossNodeMessagesAreCbor() throws Exception {
    int port = freePort();
    ClusterConfig cluster =
        new ClusterConfig(
            "127.0.0.1", port, List.of(new ClusterConfig.SeedNode("127.0.0.1", port)), SECRET);
    SessionSupervisor supervisor =
        SessionSupervisor.start(
            new SupervisorConfig(Map.of(), gateway().withCluster(cluster)),
            DefaultConnectors.create(),
            SupervisorObserver.NONE,
            ConfigFactory.parseString("pekko.loglevel = WARNING")
                .withFallback(ConfigFactory.load()));
    try {
      Membership membership = supervisor.membership();
      assertTrue(membership.clustered());
      assertEquals(SETTINGS.systemName(cluster), supervisor.actorSystem().name());
      TestProbe<Void> probe = TestProbe.create(supervisor.actorSystem());
      probe.awaitAssert(
          Duration.ofSeconds(20),
          () -> {
            assertTrue(membership.isUp(), "up");
            return null;
          });
      assertEquals(
          List.of(
              new Membership.MemberView(
                  membership.selfAddress(), membership.selfNode(), "up", true)),
          membership.members());
      assertTrue(
          membership.selfNode().matches(Pattern.quote(membership.selfAddress()) + "#-?\\d+"),
          membership.selfNode());
      assertEquals(
          "pekko://" + SETTINGS.systemName(cluster) + "@127.0.0.1:" + port,
          membership.selfAddress());

      Serialization serialization =
          SerializationExtension.get(supervisor.actorSystem().classicSystem());
      Crossing crossing = new Crossing("s-1", 7);
      assertTrue(serialization.findSerializerFor(crossing) instanceof JacksonCborSerializer);
      byte[] bytes = serialization.serialize(crossing).get();
      assertEquals(
          crossing,
          serialization
              .deserialize(
                  bytes,
                  serialization.findSerializerFor(crossing).identifier(),
                  Serializers.manifestFor(serialization.findSerializerFor(crossing), crossing))
              .get());
      assertThrows(
          NotSerializableException.class,
          () -> serialization.serializerFor(Local.class),
          "a local message has no serializer: Java serialization stays off");
      assertFalse(membership.selfAddress().contains(SECRET));
    } finally {
      supervisor.shutdown().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
