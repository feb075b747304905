package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.FixtureHttpServer;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.fixture.ReceivedRequest;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.IdentitySecrets;
import dev.mcpsupervisor.protocol.config.NamedToken;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Each caller's own credential upstream ({@code "Bearer ${identity:github_token}"}): a Streamable
 * HTTP upstream that records the Authorization header of every request it gets sees each caller's
 * calls with that caller's value only, in upstream sessions of that caller only; a caller without a
 * value gets an error naming what is missing and no tools of that server; no value is ever shown.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CallerCredentialsTest {

  private static final String ALICE_TOKEN = "alice-token-0123456789abcdef0123456789";
  private static final String BOB_TOKEN = "bob-token-0123456789abcdef0123456789ab";
  private static final String CAROL_TOKEN = "carol-token-0123456789abcdef0123456789";

  /** The canary in every secret: it must appear nowhere but upstream. */
  private static final String CANARY = "CANARY7f3a";

  private static final String ALICE_SECRET = "ghp_alice_" + CANARY;
  private static final String BOB_SECRET = "ghp_bob_" + CANARY;
  private static final String ALICE_ROTATED = "ghp_alice_rotated_" + CANARY;

  private static final int CALLERS_PER_IDENTITY = 20;
  private static final int CALLS_PER_CALLER = 3;

  private final Queue<ReceivedRequest> received = new ConcurrentLinkedQueue<>();
  private CapturedLogs logs;
  private FixtureHttpServer upstream;
  private TestGateway gateway;
  private EchoCallers echoes;

  @BeforeAll
  void start() {
    logs = new CapturedLogs();
    upstream = FixtureServer.startHttp(0, received::add);
    gateway =
        TestGateway.start(
            gatewayConfig(ALICE_SECRET),
            TestGateway.server(
                "gh",
                new ServerSpec.StreamableHttp(
                    URI.create(upstream.url()),
                    Map.of("Authorization", "Bearer ${identity:github_token}"))));
    echoes = new EchoCallers(gateway, "gh", CALLS_PER_CALLER);
  }

  private static GatewayConfig gatewayConfig(String aliceSecret) {
    return GatewayConfig.builder()
        .host("127.0.0.1")
        .port(0)
        .maxBodyBytes(1024 * 1024)
        .sessionIdleTimeout(Duration.ofMinutes(30))
        .namedTokens(
            List.of(
                new NamedToken("alice", ALICE_TOKEN),
                new NamedToken("bob", BOB_TOKEN),
                new NamedToken("carol", CAROL_TOKEN)))
        .identitySecrets(
            new IdentitySecrets(
                Map.of(
                    "alice", Map.of("github_token", aliceSecret),
                    "bob", Map.of("github_token", BOB_SECRET))))
        .build();
  }

  @AfterAll
  void stop() {
    try {
      gateway.close();
    } finally {
      upstream.close();
      logs.close();
    }
  }

  @Test
  void racingCallersOfTwoIdentitiesEachReachTheUpstreamWithTheirOwnCredentialOnly()
      throws Exception {
    received.clear(); // another test's requests are not this one's
    ExecutorService callers = Executors.newFixedThreadPool(2 * CALLERS_PER_IDENTITY);
    try {
      List<CompletableFuture<Void>> runs = new ArrayList<>();
      for (int i = 0; i < CALLERS_PER_IDENTITY; i++) {
        for (String identity : List.of("alice", "bob")) {
          int caller = i;
          runs.add(
              CompletableFuture.runAsync(
                  () -> echoes.asSession(identity, caller, bearer(identity)), callers));
          runs.add(
              CompletableFuture.runAsync(
                  () -> echoes.stateless(identity, caller, bearer(identity)), callers));
        }
      }
      CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
    } finally {
      callers.shutdownNow();
    }

    Map<String, String> expected =
        Map.of("alice", "Bearer " + ALICE_SECRET, "bob", "Bearer " + BOB_SECRET);
    Map<String, Set<String>> credentialsBySession = new HashMap<>();
    int echoes = 0;
    int mixed = 0;
    Set<String> anyCallers =
        Set.of("Bearer " + ALICE_SECRET, "Bearer " + BOB_SECRET, "Bearer " + ALICE_ROTATED);
    for (ReceivedRequest request : received) {
      assertTrue(
          anyCallers.contains(request.authorization()),
          "an upstream request without a caller's credential: " + request.httpMethod());
      if (request.sessionId() != null) {
        credentialsBySession
            .computeIfAbsent(request.sessionId(), id -> new HashSet<>())
            .add(request.authorization());
      }
      JsonNode body = request.body().isEmpty() ? null : TestGateway.json(request.body());
      if (body != null && "tools/call".equals(body.path("method").asText())) {
        String message = body.path("params").path("arguments").path("message").asText();
        if (!message.matches("(alice|bob)-(session|stateless)-.*")) {
          continue; // another test's
        }
        String caller = message.substring(0, message.indexOf('-'));
        echoes++;
        if (!expected.get(caller).equals(request.authorization())) {
          mixed++;
        }
      }
    }
    // each caller's calls, on /mcp and /servers/gh/mcp in turn, in both eras
    assertEquals(2 * 2 * CALLERS_PER_IDENTITY * CALLS_PER_CALLER, echoes);
    assertEquals(0, mixed, "calls that reached the upstream with another caller's credential");
    Set<String> aliceSessions = new HashSet<>();
    Set<String> bobSessions = new HashSet<>();
    credentialsBySession.forEach(
        (session, credentials) -> {
          assertEquals(1, credentials.size(), "an upstream session used by both identities");
          if (credentials.contains(expected.get("alice"))) {
            aliceSessions.add(session);
          } else if (credentials.contains(expected.get("bob"))) {
            bobSessions.add(session);
          }
        });
    assertFalse(aliceSessions.isEmpty(), "alice's upstream sessions");
    assertFalse(bobSessions.isEmpty(), "bob's upstream sessions");
  }

  @Test
  void aCallerWithoutAValueGetsAnErrorNamingItAndNoToolsOfThatServer() {
    String[] carol = {"Authorization", "Bearer " + CAROL_TOKEN};
    HttpResponse<String> refused =
        gateway.post(
            "/servers/gh/mcp",
            null,
            TestGateway.initializeBody(ProtocolVersions.LATEST, "{}"),
            carol);
    JsonNode error = TestGateway.answer(refused).path("error");
    assertEquals(JsonRpcErrorCodes.MISSING_CREDENTIAL, error.path("code").asInt(), refused.body());
    String message = error.path("message").asText();
    assertTrue(message.contains("gh") && message.contains("github_token"), message);
    assertTrue(message.contains("carol"), message);

    assertEquals(List.of(), toolsOn("/mcp", carol));
    assertEquals(
        List.of("gh__" + FixtureTools.ECHO),
        toolsOn("/mcp", "Authorization", "Bearer " + ALICE_TOKEN).stream()
            .filter(("gh__" + FixtureTools.ECHO)::equals)
            .toList(),
        "alice still sees them");

    List<String> statelessHeaders =
        new ArrayList<>(List.of(StatelessClient.headers("tools/call", FixtureTools.ECHO)));
    statelessHeaders.addAll(List.of(carol));
    HttpResponse<String> statelessRefused =
        gateway.post(
            "/servers/gh/mcp",
            null,
            new StatelessClient(gateway, "{}")
                .toolCall(9, FixtureTools.ECHO, "{\"message\":\"carol\"}", "", ""),
            statelessHeaders.toArray(String[]::new));
    assertEquals(
        JsonRpcErrorCodes.MISSING_CREDENTIAL,
        TestGateway.answer(statelessRefused).path("error").path("code").asInt(),
        statelessRefused.body());
  }

  private List<String> toolsOn(String path, String... auth) {
    String session = gateway.initializeWith(path, auth);
    HttpResponse<String> listed =
        gateway.post(path, session, TestGateway.request(2, "tools/list", "{}"), auth);
    List<String> names = new ArrayList<>();
    TestGateway.answer(listed)
        .path("result")
        .path("tools")
        .forEach(tool -> names.add(tool.path("name").asText()));
    return names;
  }

  /** The canary: no secret value in an answer, the admin pages, metrics, events or log lines. */
  @Test
  void noCredentialIsEverShown() {
    List<String> shown = new ArrayList<>();
    String[] alice = {"Authorization", "Bearer " + ALICE_TOKEN};
    String session = gateway.initializeWith("/mcp", alice);
    shown.add(
        gateway.post("/mcp", session, TestGateway.request(2, "tools/list", "{}"), alice).body());
    shown.add(
        gateway
            .post(
                "/mcp",
                session,
                TestGateway.callTool(3, "gh__" + FixtureTools.ECHO, "{\"message\":\"x\"}"),
                alice)
            .body());
    shown.add(
        gateway
            .post(
                "/servers/gh/mcp",
                null,
                TestGateway.initializeBody(ProtocolVersions.LATEST, "{}"),
                "Authorization",
                "Bearer " + CAROL_TOKEN)
            .body());
    String sessions = gateway.get("/admin/sessions", alice).body();
    shown.addAll(gateway.operatorViews(alice));
    shown.addAll(logs.lines());
    for (String text : shown) {
      assertFalse(text.contains(CANARY), text);
    }
    // the operations page shows whom the session acts as
    assertTrue(sessions.contains("gh@alice"), sessions);
  }

  /** A value rotated in the secrets and reloaded: the identity's next calls carry the new one. */
  @Test
  void aRotatedValueIsUsedFromTheReloadOn() throws InterruptedException {
    String rotated = ALICE_ROTATED;
    SupervisorConfig before = gateway.supervisor.config();
    String[] alice = {"Authorization", "Bearer " + ALICE_TOKEN};
    String session = gateway.initializeWith("/servers/gh/mcp", alice);
    long closedBefore = closedUpstreamSessions("Bearer " + ALICE_SECRET);
    try {
      TestGateway.await(
          gateway.supervisor.reconfigure(
              new SupervisorConfig(before.servers(), gatewayConfig(rotated))));
      HttpResponse<String> answer =
          gateway.post(
              "/servers/gh/mcp",
              session,
              TestGateway.callTool(2, FixtureTools.ECHO, "{\"message\":\"alice-rotated\"}"),
              alice);
      assertEquals("alice-rotated", TestGateway.text(TestGateway.answer(answer)), answer.body());
      List<String> credentials =
          received.stream()
              .filter(request -> request.body().contains("alice-rotated"))
              .map(ReceivedRequest::authorization)
              .toList();
      assertEquals(List.of("Bearer " + rotated), credentials);
      // the old value's upstream sessions are retired (drained and closed), not left until idle
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (closedUpstreamSessions("Bearer " + ALICE_SECRET) == closedBefore
          && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertTrue(
          closedUpstreamSessions("Bearer " + ALICE_SECRET) > closedBefore,
          "no upstream session of the old value was closed");
    } finally {
      TestGateway.await(gateway.supervisor.reconfigure(before));
    }
  }

  private long closedUpstreamSessions(String authorization) {
    return received.stream()
        .filter(
            request ->
                request.httpMethod().equals("DELETE")
                    && authorization.equals(request.authorization()))
        .count();
  }

  private static String tokenOf(String identity) {
    return identity.equals("alice") ? ALICE_TOKEN : BOB_TOKEN;
  }

  private static String[] bearer(String identity) {
    return new String[] {"Authorization", "Bearer " + tokenOf(identity)};
  }
}
