package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.FixtureHttpServer;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.fixture.ReceivedRequest;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.IdentitySecrets;
import dev.mcpsupervisor.protocol.config.NamedToken;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A session of a server whose headers name the caller ({@code ${identity:github_token}}), adopted
 * by another node when its node stops, fills its headers again there from that node's own secrets:
 * the replicated record carries no credential, so the adopter's value is the one the upstream sees
 * (each node here has its own value for alice, to tell them apart).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class AdoptedCredentialsTest {

  private static final String SECRET = "the-cluster-secret-of-adopted-credentials";
  private static final String ALICE_TOKEN = "alice-token-0123456789abcdef0123456789";
  private static final String PATH = "/servers/gh/mcp";
  private static final Duration PHASE = Duration.ofSeconds(60);

  private final Queue<ReceivedRequest> received = new ConcurrentLinkedQueue<>();
  private final List<AutoCloseable> started = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable closing : started) {
      closing.close();
    }
  }

  @Test
  void anAdoptedSessionActsWithTheAdoptersOwnValue() {
    FixtureHttpServer upstream = FixtureServer.startHttp(0, received::add);
    started.add(upstream);
    ServerConfig gh =
        ConfigLoader.parse(
                "mcpServers { gh { url = \""
                    + upstream.url()
                    + "\", headers { Authorization = \"Bearer ${identity:github_token}\" } } }\n"
                    + "gateway { authTokens = [\""
                    + ALICE_TOKEN
                    + "\"] }",
                "test")
            .servers()
            .get("gh");
    int seedPort = TestGateway.freePort();
    TestGateway stopping = node(seedPort, seedPort, "value-of-node-0", gh);
    TestGateway adopter = node(TestGateway.freePort(), seedPort, "value-of-node-1", gh);
    TestGateway.awaitDesks(List.of(stopping, adopter), PHASE);
    String[] alice = {"Authorization", "Bearer " + ALICE_TOKEN};

    String session = stopping.initializeWith(PATH, alice);
    assertEquals("before", echo(stopping, session, "before", alice));
    assertEquals("Bearer value-of-node-0", authorizationOf("before"));

    stopping.close(Duration.ofSeconds(10));

    assertEquals("after", echo(adopter, session, "after", alice));
    assertEquals("Bearer value-of-node-1", authorizationOf("after"));
  }

  private static String echo(TestGateway node, String session, String message, String[] auth) {
    HttpResponse<String> answer =
        node.post(
            PATH,
            session,
            TestGateway.callTool(2, FixtureTools.ECHO, "{\"message\":\"" + message + "\"}"),
            auth);
    return TestGateway.text(TestGateway.answer(answer));
  }

  /** The Authorization header of the upstream request that echoed {@code message}. */
  private String authorizationOf(String message) {
    for (ReceivedRequest request : received) {
      JsonNode body = request.body().isEmpty() ? null : TestGateway.json(request.body());
      if (body != null
          && message.equals(body.path("params").path("arguments").path("message").asText())) {
        return request.authorization();
      }
    }
    throw new AssertionError("the upstream never saw " + message);
  }

  private TestGateway node(int port, int seedPort, String aliceValue, ServerConfig gh) {
    TestGateway node =
        TestGateway.start(
            TestGateway.CLUSTER_NODE_SETTINGS,
            GatewayConfig.builder()
                .host("127.0.0.1")
                .port(0)
                .maxBodyBytes(1 << 20)
                .sessionIdleTimeout(Duration.ofMinutes(5))
                .namedTokens(List.of(new NamedToken("alice", ALICE_TOKEN)))
                .cluster(
                    new ClusterConfig(
                        "127.0.0.1",
                        port,
                        List.of(new ClusterConfig.SeedNode("127.0.0.1", seedPort)),
                        SECRET))
                .identitySecrets(
                    new IdentitySecrets(Map.of("alice", Map.of("github_token", aliceValue))))
                .build(),
            gh);
    started.add(0, node); // closed before the upstream
    return node;
  }
}
