package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.Test;

/**
 * Three gateways on 127.0.0.1 form one cluster and each turns ready once Up; a fourth with another
 * secret never joins. Every message is verified as if it crossed a node ({@code
 * serialize-messages}), except those of the classes that stay on their node.
 */
class ClusterFormationTest {

  private static final String SECRET = "the-cluster-secret-of-the-three-nodes";
  private static final String OTHER_SECRET = "the-secret-of-another-cluster-entirely";

  /**
   * Every message is serialized and read back before delivery, as a message to another node would
   * be; the actors' and the gateway's own messages stay on their node (they are never sent across:
   * nothing crosses yet beyond Pekko's own), and Pekko's are Pekko's business.
   */
  private static final String NODE_SETTINGS =
      """
      pekko.actor.serialize-messages = on
      pekko.actor.no-serialization-verification-needed-class-prefix = [
        "org.apache.pekko.", "dev.mcpsupervisor.actors.", "dev.mcpsupervisor.http."]
      pekko.cluster.jmx.multi-mbeans-in-same-jvm = on
      """;

  private static final Duration FORMATION = Duration.ofSeconds(30);

  /** How long a node of another secret is watched not joining: beyond a join retry (5 s). */
  private static final Duration NOT_JOINING = Duration.ofSeconds(8);

  @Test
  void threeNodesFormOneClusterAndANodeOfAnotherSecretNeverJoins() throws Exception {
    List<TestGateway> nodes = new ArrayList<>();
    try {
      int seedPort = TestGateway.freePort();
      ClusterConfig.SeedNode seed = new ClusterConfig.SeedNode("127.0.0.1", seedPort);
      nodes.add(node(seedPort, seed, SECRET));
      nodes.add(node(TestGateway.freePort(), seed, SECRET));
      nodes.add(node(TestGateway.freePort(), seed, SECRET));
      TestProbe<Void> probe = TestProbe.create(nodes.get(0).supervisor.actorSystem());
      for (TestGateway node : nodes) {
        probe.awaitAssert(
            FORMATION,
            () -> {
              HttpResponse<String> ready = node.get("/readyz");
              assertEquals(200, ready.statusCode(), ready.body());
              assertEquals("ready", json(ready).path("status").asText());
              return null;
            });
      }
      probe.awaitAssert(
          FORMATION,
          () -> {
            for (TestGateway node : nodes) {
              JsonNode members = json(node.get("/admin/sessions")).path("cluster").path("members");
              assertEquals(3, members.size(), members.toString());
              members.forEach(member -> assertEquals("up", member.path("status").asText()));
            }
            return null;
          });
      String metrics = nodes.get(1).get("/metrics").body();
      assertTrue(metrics.contains("mcp_supervisor_cluster_members{status=\"up\"} 3.0"), metrics);
      assertTrue(metrics.contains("mcp_supervisor_cluster_unreachable_members 0.0"), metrics);
      for (TestGateway node : nodes) {
        assertFalse(node.get("/admin/sessions").body().contains(SECRET), "never shown");
        assertFalse(node.get("/metrics").body().contains(SECRET), "never shown");
      }

      TestGateway stranger = node(TestGateway.freePort(), seed, OTHER_SECRET);
      nodes.add(stranger);
      long until = System.nanoTime() + NOT_JOINING.toNanos();
      while (System.nanoTime() < until) {
        HttpResponse<String> readiness = stranger.get("/readyz");
        assertEquals(503, readiness.statusCode(), readiness.body());
        assertEquals("joining", json(readiness).path("status").asText());
        assertEquals(
            3, json(nodes.get(0).get("/admin/sessions")).path("cluster").path("members").size());
        // a probe's period, not a wait for something to happen: the loop checks a state that must
        // not change for NOT_JOINING
        TimeUnit.MILLISECONDS.sleep(250);
      }
      assertFalse(stranger.supervisor.membership().isUp());
    } finally {
      CompletableFuture.allOf(
              nodes.stream()
                  .map(node -> CompletableFuture.runAsync(node::close))
                  .toArray(CompletableFuture[]::new))
          .get(60, TimeUnit.SECONDS);
    }
  }

  /** A gateway on any port whose node is Artery on {@code port}, joining through {@code seed}. */
  private static TestGateway node(int port, ClusterConfig.SeedNode seed, String secret) {
    return TestGateway.start(NODE_SETTINGS, TestGateway.clusterNode(port, seed, secret));
  }

  private static JsonNode json(HttpResponse<String> response) throws IOException {
    return JsonRpcCodec.mapper().readTree(response.body());
  }
}
