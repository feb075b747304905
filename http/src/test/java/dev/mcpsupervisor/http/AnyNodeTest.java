package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.http.access.SessionIdSeal;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.cluster.NodeDesk;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.RequestStates;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Two gateway nodes of one cluster, each with its own fixture over stdio, and requests that land on
 * either: a 2025-era session created on one node is served through the other (answers, progress on
 * the response stream, DELETE), and a 2026-07-28 call whose first round went to one node continues
 * when its retry lands on the other. Every message that crosses is serialized as a real crossing
 * would be ({@code serialize-messages}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AnyNodeTest {

  private static final String SECRET = "the-cluster-secret-of-the-round-nodes";
  private static final String FIXTURE = "/servers/fixture/mcp";
  private static final String ACCEPT = "{\"action\":\"accept\",\"content\":{\"answer\":\"%s\"}}";
  private static final int CALLERS = 20;

  /**
   * Each node's fixture sessions: fewer than its callers, so their rounds also queue for a session
   * (an interactive call is never shared in flight). One per caller meant 18 fixture JVMs starting
   * at once under a 30 s client timeout: 16-21 s on an idle 2-core machine, 23.5 s with two busy
   * loops beside it, and over 30 s once in CI.
   */
  private static final int SESSIONS_PER_NODE = 4;

  private static final int SESSIONS = 40;

  private static final Duration FORMATION = Duration.ofSeconds(30);

  private final List<TestGateway> nodes = new ArrayList<>();
  private final List<TestGateway> stopped = new ArrayList<>();

  @BeforeAll
  void start() throws IOException {
    int seedPort = TestGateway.freePort();
    ClusterConfig.SeedNode seed = new ClusterConfig.SeedNode("127.0.0.1", seedPort);
    nodes.add(node(seedPort, seed));
    nodes.add(node(TestGateway.freePort(), seed));
    TestGateway.awaitDesks(nodes, FORMATION);
  }

  @AfterAll
  void stop() throws Exception {
    CompletableFuture.allOf(
            nodes.stream()
                .filter(node -> !stopped.contains(node))
                .map(node -> CompletableFuture.runAsync(node::close))
                .toArray(CompletableFuture[]::new))
        .get(60, TimeUnit.SECONDS);
  }

  @Test
  @Order(1)
  void sessionsCreatedOnOneNodeAreServedThroughTheOther() {
    List<CompletableFuture<List<String>>> sessions = new ArrayList<>();
    for (int i = 0; i < SESSIONS; i++) {
      int n = i;
      sessions.add(CompletableFuture.supplyAsync(() -> session(n)));
    }
    for (int i = 0; i < SESSIONS; i++) {
      assertEquals(
          List.of("s" + i + "-0", "s" + i + "-1", "s" + i + "-2", "3 steps", "200", "404", "404"),
          sessions.get(i).join(),
          "session " + i);
    }
  }

  /**
   * One session: initialized on one node, then three echoes alternating between the nodes, a
   * progress call on the other node, DELETE there, and then it is gone on both.
   */
  private List<String> session(int n) {
    TestGateway home = nodes.get(n % 2);
    TestGateway other = nodes.get((n + 1) % 2);
    String id = home.initialize(FIXTURE);
    List<String> seen = new ArrayList<>();
    for (int call = 0; call < 3; call++) {
      TestGateway node = call % 2 == 0 ? other : home;
      HttpResponse<String> echoed =
          node.post(
              FIXTURE,
              id,
              TestGateway.callTool(call + 2, "echo", "{\"message\":\"s" + n + "-" + call + "\"}"));
      assertEquals(200, echoed.statusCode(), echoed.body());
      seen.add(TestGateway.text(TestGateway.answer(echoed)));
    }
    HttpResponse<String> progressed =
        other.post(
            FIXTURE,
            id,
            TestGateway.request(
                9,
                "tools/call",
                "{\"name\":\"progress\",\"arguments\":{\"steps\":3},"
                    + "\"_meta\":{\"progressToken\":\"p"
                    + n
                    + "\"}}"));
    List<JsonNode> messages = TestGateway.messages(progressed);
    long progress =
        messages.stream()
            .filter(m -> "notifications/progress".equals(m.path("method").asText()))
            .filter(m -> ("p" + n).equals(m.path("params").path("progressToken").asText()))
            .count();
    seen.add(progress + " steps");
    seen.add(Integer.toString(other.delete(FIXTURE, id).statusCode()));
    seen.add(
        Integer.toString(
            home.post(FIXTURE, id, TestGateway.callTool(10, "echo", "{\"message\":\"x\"}"))
                .statusCode()));
    seen.add(
        Integer.toString(
            other
                .post(FIXTURE, id, TestGateway.callTool(11, "echo", "{\"message\":\"x\"}"))
                .statusCode()));
    return seen;
  }

  @Test
  @Order(2)
  void aSessionsServerRequestsAndItsGetStreamCrossNodesToo() throws InterruptedException {
    TestGateway home = nodes.get(0);
    TestGateway other = nodes.get(1);
    String id = home.initialize(FIXTURE, ProtocolVersions.LATEST, "{\"elicitation\":{}}");
    String shown = SessionIds.redact(id);
    JsonNode listed =
        TestGateway.json(home.get("/admin/sessions").body()).path("downstreamSessions");
    JsonNode entry = null;
    for (JsonNode each : listed) {
      if (each.path("id").asText().equals(shown)) {
        entry = each;
      }
    }
    assertTrue(entry != null, "the node holding it lists it: " + listed);
    assertEquals(home.supervisor.membership().selfAddress(), entry.path("node").asText());
    JsonNode listedThere =
        TestGateway.json(other.get("/admin/sessions").body()).path("downstreamSessions");
    List<String> nodesThere = new ArrayList<>();
    listedThere.forEach(
        each -> {
          if (each.path("id").asText().equals(shown)) {
            nodesThere.add(each.path("node").asText());
          }
        });
    assertEquals(
        List.of(home.supervisor.membership().selfAddress()),
        nodesThere,
        "the other node lists it once, as the holding node's");
    try (SseStream listening =
            SseStream.open(
                other,
                other
                    .request(FIXTURE)
                    .header("Mcp-Session-Id", id)
                    .header("Accept", "text/event-stream")
                    .GET()
                    .build());
        SseStream calling =
            SseStream.open(
                other,
                other
                    .postRequest(
                        FIXTURE,
                        id,
                        TestGateway.callTool(5, "elicit", "{\"message\":\"Your name?\"}"))
                    .build())) {
      JsonNode asked = calling.next();
      assertEquals("elicitation/create", asked.path("method").asText(), asked.toString());
      HttpResponse<String> answered =
          home.post(
              FIXTURE,
              id,
              "{\"jsonrpc\":\"2.0\",\"id\":"
                  + asked.path("id")
                  + ",\"result\":"
                  + ACCEPT.formatted("Bob")
                  + "}");
      assertEquals(202, answered.statusCode(), answered.body());
      JsonNode result = calling.next();
      assertEquals(5, result.path("id").asInt(), result.toString());
      assertEquals("accept:{\"answer\":\"Bob\"}", TestGateway.text(result));

      HttpResponse<String> changed =
          home.post(FIXTURE, id, TestGateway.callTool(6, "trigger_list_changed", "{}"));
      assertEquals(200, changed.statusCode(), changed.body());
      JsonNode notified = listening.next();
      assertEquals(
          "notifications/tools/list_changed",
          notified.path("method").asText(),
          "the GET stream on the other node: " + notified);
    }
    assertEquals(200, home.delete(FIXTURE, id).statusCode());
  }

  @Test
  @Order(3)
  void aRoundAnsweredOnTheOtherNodeContinuesTheCallWaitingOnTheFirst() {
    List<CompletableFuture<String>> answers = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      TestGateway first = nodes.get(i % 2);
      TestGateway other = nodes.get((i + 1) % 2);
      String name = "caller-" + i;
      answers.add(roundTrip(first, other, i, name));
    }
    for (int i = 0; i < CALLERS; i++) {
      assertEquals(
          "accept:{\"answer\":\"caller-" + i + "\"}",
          answers.get(i).join(),
          "caller " + i + " got its own answer");
    }
  }

  @Test
  @Order(4)
  void aStateSealedUnderAnotherClustersSecretIsRefusedOnEveryNode() {
    StatelessClient client = new StatelessClient(nodes.get(0), "{\"elicitation\":{}}");
    String forged =
        GatewaySettings.clusterRequestStates("the-secret-of-another-cluster")
            .seal(
                new RequestStates.State(
                    "p",
                    1,
                    "tools/call",
                    "elicit",
                    null,
                    Long.MAX_VALUE,
                    nodes.get(1).supervisor.membership().selfAddress()));
    for (TestGateway node : nodes) {
      HttpResponse<String> refused =
          node.post(
              FIXTURE,
              null,
              client.toolCall(
                  1,
                  "elicit",
                  "{\"message\":\"?\"}",
                  ",\"inputResponses\":{},\"requestState\":\"" + forged + "\"",
                  ""),
              StatelessClient.headers("tools/call", "elicit"));
      assertEquals(400, refused.statusCode(), refused.body());
      assertTrue(refused.body().contains("requestState failed verification"), refused.body());
    }
  }

  @Test
  @Order(5)
  void aSessionIdNotSealedByThisClusterIsUnknownOnEveryNode() {
    String tag = SessionIds.nodeTag(nodes.get(0).supervisor.membership().selfAddress());
    String real = nodes.get(0).initialize(FIXTURE);
    String tampered = real.substring(0, real.length() - 1) + (real.endsWith("A") ? "B" : "A");
    String foreign =
        SessionIds.generate(
            new java.security.SecureRandom(),
            tag,
            SessionIdSeal.ofSecret("the-secret-of-another-cluster"));
    for (TestGateway node : nodes) {
      for (String id : List.of(tampered, foreign)) {
        HttpResponse<String> refused =
            node.post(FIXTURE, id, TestGateway.callTool(1, "echo", "{\"message\":\"x\"}"));
        assertEquals(404, refused.statusCode(), id + ": " + refused.body());
        assertEquals(404, node.delete(FIXTURE, id).statusCode());
      }
      HttpResponse<String> served =
          node.post(FIXTURE, real, TestGateway.callTool(2, "echo", "{\"message\":\"y\"}"));
      assertEquals("y", TestGateway.text(TestGateway.answer(served)), "the real one is served");
    }
  }

  /** Last: it stops the first node. */
  @Test
  @Order(6)
  void aRetryWhoseNodeIsGoneIsToldToStartTheCallAgain() {
    TestGateway holder = nodes.get(0);
    TestGateway survivor = nodes.get(1);
    StatelessClient client = new StatelessClient(holder, "{\"elicitation\":{}}");
    String arguments = "{\"message\":\"Still there?\"}";
    HttpResponse<String> first =
        holder.post(
            FIXTURE,
            null,
            client.toolCall(1, "elicit", arguments, "", ""),
            StatelessClient.headers("tools/call", "elicit"));
    JsonNode round = TestGateway.answer(first).path("result");
    assertEquals("input_required", round.path("resultType").asText(), first.body());
    String key = round.path("inputRequests").fieldNames().next();

    stopped.add(holder);
    holder.close();
    TestProbe<Receptionist.Listing> probe = TestProbe.create(survivor.supervisor.actorSystem());
    probe.awaitAssert(
        FORMATION,
        () -> {
          survivor
              .supervisor
              .actorSystem()
              .receptionist()
              .tell(Receptionist.find(NodeDesk.KEY, probe.getRef()));
          assertEquals(1, probe.receiveMessage().getServiceInstances(NodeDesk.KEY).size());
          return null;
        });

    HttpResponse<String> retry =
        survivor.post(
            FIXTURE,
            null,
            client.toolCall(
                2,
                "elicit",
                arguments,
                ",\"inputResponses\":{\""
                    + key
                    + "\":"
                    + ACCEPT.formatted("yes")
                    + "},\"requestState\":\""
                    + round.path("requestState").asText()
                    + "\"",
                ""),
            StatelessClient.headers("tools/call", "elicit"));
    assertEquals(400, retry.statusCode(), retry.body());
    assertTrue(retry.body().contains("send the request again without requestState"), retry.body());
  }

  /**
   * One caller: the first round on {@code first}, the retry on {@code other}; its answer's text.
   */
  private static CompletableFuture<String> roundTrip(
      TestGateway first, TestGateway other, int id, String name) {
    StatelessClient client = new StatelessClient(first, "{\"elicitation\":{}}");
    String arguments = "{\"message\":\"Your name, " + name + "?\"}";
    return first
        .postAsync(
            FIXTURE,
            null,
            client.toolCall(id, "elicit", arguments, "", ""),
            StatelessClient.headers("tools/call", "elicit"))
        .thenCompose(
            response -> {
              JsonNode round = TestGateway.answer(response).path("result");
              assertEquals("input_required", round.path("resultType").asText(), response.body());
              Iterator<String> keys = round.path("inputRequests").fieldNames();
              String key = keys.next();
              String retry =
                  client.toolCall(
                      1000 + id,
                      "elicit",
                      arguments,
                      ",\"inputResponses\":{\""
                          + key
                          + "\":"
                          + ACCEPT.formatted(name)
                          + "},\"requestState\":\""
                          + round.path("requestState").asText()
                          + "\"",
                      "");
              return other.postAsync(
                  FIXTURE, null, retry, StatelessClient.headers("tools/call", "elicit"));
            })
        .thenApply(
            response -> {
              JsonNode done = TestGateway.answer(response);
              assertEquals(1000 + id, done.path("id").asInt(), response.body());
              assertTrue(done.has("result"), response.body());
              return TestGateway.text(done);
            });
  }

  private static TestGateway node(int port, ClusterConfig.SeedNode seed) {
    return TestGateway.start(
        TestGateway.CLUSTER_NODE_SETTINGS,
        TestGateway.clusterNode(port, seed, SECRET),
        elicitingFixture());
  }

  /**
   * The fixture over stdio, its {@code elicit} declared interactive (so never shared in flight), at
   * most {@link #SESSIONS_PER_NODE} sessions.
   */
  private static ServerConfig elicitingFixture() {
    ServerConfig fixture = TestGateway.stdioFixture("fixture");
    return fixture.toBuilder()
        .maxSessions(SESSIONS_PER_NODE)
        .interactiveTools(Set.of("elicit"))
        .build();
  }
}
