package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.cluster.ClusterSettings;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.cluster.AdminDesk;
import dev.mcpsupervisor.http.ops.OpsJournal;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.cluster.typed.Cluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * One view of a cluster: two gateway nodes, each with its own fixture and its own configuration
 * file's fingerprint. The operations page and {@code /admin/sessions} of either show both nodes'
 * sessions and server keys with their node, and both fingerprints with the drift flagged; an
 * operator's close and restart of the other node's sessions are carried out there and audited
 * there; a member whose admin desk never answers is shown unreachable and does not hold the page
 * beyond its bound. What crosses nodes is serialized as a real crossing would be.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterAdminTest {

  private static final String SECRET = "the-cluster-secret-of-the-admin-view";
  private static final String FIXTURE = "/servers/fixture/mcp";
  private static final Duration FORMATION = Duration.ofSeconds(30);

  /** A page that waits for a silent member: its bound, and the asks' own time on a busy machine. */
  private static final Duration PAGE_BOUND = AdminDesk.MEMBER_TIMEOUT.plusSeconds(4);

  private final List<TestGateway> nodes = new ArrayList<>();
  private ClusterConfig.SeedNode seed;
  private String sessionOnA;
  private String sessionOnB;

  @BeforeAll
  void start() {
    int seedPort = TestGateway.freePort();
    seed = new ClusterConfig.SeedNode("127.0.0.1", seedPort);
    nodes.add(node(seedPort, "fingerprint-of-a"));
    nodes.add(node(TestGateway.freePort(), "fingerprint-of-b"));
    TestGateway.awaitDesks(nodes, FORMATION);
    for (TestGateway node : nodes) {
      TestProbe<Receptionist.Listing> probe = TestProbe.create(node.supervisor.actorSystem());
      probe.awaitAssert(
          FORMATION,
          () -> {
            node.supervisor
                .actorSystem()
                .receptionist()
                .tell(Receptionist.find(AdminDesk.KEY, probe.getRef()));
            assertEquals(2, probe.receiveMessage().getServiceInstances(AdminDesk.KEY).size());
            return null;
          });
    }
    sessionOnA = a().initialize(FIXTURE);
    sessionOnB = b().initialize(FIXTURE);
    for (String session : List.of(sessionOnA, sessionOnB)) {
      TestGateway home = session.equals(sessionOnA) ? a() : b();
      HttpResponse<String> echoed =
          home.post(FIXTURE, session, TestGateway.callTool(2, "echo", "{\"message\":\"hi\"}"));
      assertEquals(200, echoed.statusCode(), echoed.body());
    }
  }

  @AfterAll
  void stop() throws Exception {
    CompletableFuture.allOf(
            nodes.stream()
                .map(node -> CompletableFuture.runAsync(node::close))
                .toArray(CompletableFuture[]::new))
        .get(60, TimeUnit.SECONDS);
  }

  @Test
  @Order(1)
  void eachNodeListsEveryMembersSessionsKeysAndFingerprints() throws IOException {
    for (TestGateway node : nodes) {
      JsonNode report = json(node.get("/admin/sessions"));
      assertEquals(address(a()), nodeOf(report.path("downstreamSessions"), sessionOnA));
      assertEquals(address(b()), nodeOf(report.path("downstreamSessions"), sessionOnB));
      List<String> keyNodes = new ArrayList<>();
      report.path("serverKeys").forEach(key -> keyNodes.add(key.path("node").asText()));
      assertTrue(
          keyNodes.containsAll(List.of(address(a()), address(b()))), "keys of both: " + keyNodes);
      assertEquals("fingerprint-of-a", member(report, a()).path("fingerprint").asText());
      assertEquals("fingerprint-of-b", member(report, b()).path("fingerprint").asText());
      assertEquals("answered", member(report, b()).path("state").asText());
      assertTrue(report.path("cluster").path("drift").asBoolean(), "the files differ");
    }
    String page = a().get("/admin").body();
    assertTrue(page.contains("fingerprint-of-a") && page.contains("fingerprint-of-b"), page);
    assertTrue(page.contains("configuration drift"), page);
    assertTrue(page.contains("?node=" + encoded(address(b()))), "B's actions name B");
  }

  @Test
  @Order(2)
  void anUpstreamSessionOfTheOtherNodeIsRestartedThere() throws IOException {
    JsonNode key = keyOf(json(a().get("/admin/sessions")), address(b()));
    long upstream = key.path("sessions").get(0).path("id").asLong();
    int restartsBefore = key.path("sessions").get(0).path("restarts").asInt();
    HttpResponse<String> restarted =
        action(
            a(),
            "/admin/servers/"
                + encoded(key.path("key").asText())
                + "/sessions/"
                + upstream
                + "/restart?node="
                + encoded(address(b())));
    assertEquals(200, restarted.statusCode(), restarted.body());
    TestProbe<Void> probe = TestProbe.create(b().supervisor.actorSystem());
    probe.awaitAssert(
        FORMATION,
        () -> {
          JsonNode onB = keyOf(json(b().get("/admin/sessions")), address(b()));
          assertTrue(
              onB.path("sessions").get(0).path("restarts").asInt() > restartsBefore,
              onB.toString());
          return null;
        });
  }

  @Test
  @Order(3)
  void aSessionOfTheOtherNodeIsClosedThereAndAuditedThere() throws IOException {
    String shown = SessionIds.redact(sessionOnB);
    HttpResponse<String> closed =
        action(a(), "/admin/sessions/" + encoded(shown) + "/close?node=" + encoded(address(b())));
    assertEquals(200, closed.statusCode(), closed.body());
    assertEquals("closed", json(closed).path("status").asText());
    HttpResponse<String> after =
        b().post(FIXTURE, sessionOnB, TestGateway.callTool(3, "echo", "{\"message\":\"x\"}"));
    assertEquals(404, after.statusCode(), after.body());
    OpsJournal.Entry audit =
        b().metrics.journal().entries().stream()
            .filter(entry -> entry.kind().equals("session closed"))
            .reduce((first, second) -> second)
            .orElseThrow();
    assertEquals(shown, audit.session());
    assertTrue(audit.detail().startsWith("by "), audit.detail());
    assertTrue(
        a().metrics.journal().entries().stream()
            .noneMatch(entry -> entry.kind().equals("session closed")),
        "audited where it was carried out");
    // A's own session is untouched
    HttpResponse<String> stillThere =
        a().post(FIXTURE, sessionOnA, TestGateway.callTool(4, "echo", "{\"message\":\"y\"}"));
    assertEquals(200, stillThere.statusCode(), stillThere.body());
  }

  @Test
  @Order(4)
  void aMemberThatNeverAnswersIsUnreachableAndTheViewStillComesInItsBound() throws Exception {
    int port = TestGateway.freePort();
    ClusterConfig silent = new ClusterConfig("127.0.0.1", port, List.of(seed), SECRET);
    ClusterSettings settings = new ClusterSettings();
    // a member whose admin desk takes every request and answers none
    ActorSystem<Void> member =
        ActorSystem.create(
            Behaviors.setup(
                context -> {
                  context
                      .getSystem()
                      .receptionist()
                      .tell(
                          Receptionist.register(
                              AdminDesk.KEY,
                              context.spawn(Behaviors.<AdminDesk.Command>ignore(), "silent")));
                  return Behaviors.empty();
                }),
            settings.systemName(silent),
            settings.actorSystemConfig(
                silent,
                ConfigFactory.parseString(
                        """
                        pekko.cluster.jmx.multi-mbeans-in-same-jvm = on
                        pekko.loglevel = WARNING
                        """)
                    .withFallback(ConfigFactory.load())));
    try {
      String silentAddress = Cluster.get(member).selfMember().address().toString();
      TestProbe<Void> probe = TestProbe.create(a().supervisor.actorSystem());
      probe.awaitAssert(
          FORMATION,
          () -> {
            long started = System.nanoTime();
            JsonNode report = json(a().get("/admin/sessions"));
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertTrue(took.compareTo(PAGE_BOUND) < 0, "answered in " + took);
            assertEquals("unreachable", member(report, silentAddress).path("state").asText());
            assertEquals("answered", member(report, b()).path("state").asText());
            // asked, not merely missing from the listing: the silent desk is listed
            assertTrue(took.compareTo(AdminDesk.MEMBER_TIMEOUT) >= 0, "waited " + took);
            return null;
          });
      HttpResponse<String> page = a().get("/admin");
      assertEquals(200, page.statusCode());
      assertTrue(page.body().contains("unreachable"));
      HttpResponse<String> refused =
          action(a(), "/admin/sessions/x/close?node=" + encoded(silentAddress));
      assertEquals(504, refused.statusCode(), refused.body());
    } finally {
      member.terminate();
      member.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private TestGateway a() {
    return nodes.get(0);
  }

  private TestGateway b() {
    return nodes.get(1);
  }

  private TestGateway node(int port, String fingerprint) {
    return TestGateway.start(
        TestGateway.CLUSTER_NODE_SETTINGS,
        fingerprint,
        TestGateway.clusterNode(port, seed, SECRET),
        TestGateway.stdioFixture("fixture"));
  }

  private static String address(TestGateway node) {
    return node.supervisor.membership().selfAddress();
  }

  private static HttpResponse<String> action(TestGateway node, String path) {
    return node.send(
        node.request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"reason\":\"test\"}"))
            .build());
  }

  private static String nodeOf(JsonNode sessions, String sessionId) {
    String shown = SessionIds.redact(sessionId);
    for (JsonNode session : sessions) {
      if (session.path("id").asText().equals(shown)) {
        return session.path("node").asText();
      }
    }
    throw new AssertionError("no session " + shown + " in " + sessions);
  }

  private static JsonNode keyOf(JsonNode report, String node) {
    for (JsonNode key : report.path("serverKeys")) {
      if (key.path("node").asText().equals(node) && !key.path("sessions").isEmpty()) {
        return key;
      }
    }
    throw new AssertionError("no key with a session on " + node + " in " + report);
  }

  private static JsonNode member(JsonNode report, TestGateway node) {
    return member(report, address(node));
  }

  private static JsonNode member(JsonNode report, String address) {
    for (JsonNode entry : report.path("cluster").path("nodes")) {
      if (entry.path("node").asText().equals(address)) {
        return entry;
      }
    }
    throw new AssertionError("no member " + address + " in " + report.path("cluster"));
  }

  private static String encoded(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static JsonNode json(HttpResponse<String> response) throws IOException {
    assertEquals(200, response.statusCode(), response.body());
    return JsonRpcCodec.mapper().readTree(response.body());
  }
}
