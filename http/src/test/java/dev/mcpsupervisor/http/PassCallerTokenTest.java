package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.FixtureHttpServer;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.fixture.ReceivedRequest;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.NamedToken;
import dev.mcpsupervisor.protocol.config.ServerConfig;
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
 * {@code passCallerToken: true}: a Streamable HTTP upstream that records the Authorization header
 * of every request sees each caller's calls with the bearer token that caller presented to the
 * gateway, in upstream sessions of that token only (two tokens of one identity included).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PassCallerTokenTest {

  private static final String ALICE_TOKEN = "alice-token-0123456789abcdef0123456789";
  private static final String ALICE_NEW_TOKEN = "alice-token-2-0123456789abcdef01234567";
  private static final String BOB_TOKEN = "bob-token-0123456789abcdef0123456789ab";

  private static final int CALLERS_PER_TOKEN = 20;
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
    ServerConfig passing =
        ConfigLoader.parse(
                "mcpServers { pt { url = \""
                    + upstream.url()
                    + "\", passCallerToken = true } }\n"
                    + "gateway { authTokens = [\""
                    + ALICE_TOKEN
                    + "\"] }",
                "test")
            .servers()
            .get("pt");
    gateway =
        TestGateway.start(
            GatewayConfig.builder()
                .host("127.0.0.1")
                .port(0)
                .maxBodyBytes(1024 * 1024)
                .sessionIdleTimeout(Duration.ofMinutes(30))
                .namedTokens(
                    List.of(
                        new NamedToken("alice", ALICE_TOKEN),
                        new NamedToken("alice", ALICE_NEW_TOKEN),
                        new NamedToken("bob", BOB_TOKEN)))
                .build(),
            passing);
    echoes = new EchoCallers(gateway, "pt", CALLS_PER_CALLER);
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
  void racingCallersReachTheUpstreamWithTheirOwnTokenOnlyInSessionsOfThatToken() throws Exception {
    received.clear();
    List<String> tokens = List.of(ALICE_TOKEN, ALICE_NEW_TOKEN, BOB_TOKEN);
    ExecutorService callers = Executors.newFixedThreadPool(2 * CALLERS_PER_TOKEN);
    try {
      List<CompletableFuture<Void>> runs = new ArrayList<>();
      for (int i = 0; i < CALLERS_PER_TOKEN; i++) {
        for (int t = 0; t < tokens.size(); t++) {
          int caller = i;
          int token = t;
          runs.add(
              CompletableFuture.runAsync(
                  () -> echoes.asSession(String.valueOf(token), caller, bearer(tokens.get(token))),
                  callers));
          runs.add(
              CompletableFuture.runAsync(
                  () -> echoes.stateless(String.valueOf(token), caller, bearer(tokens.get(token))),
                  callers));
        }
      }
      CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(100, TimeUnit.SECONDS);
    } finally {
      callers.shutdownNow();
    }

    Set<String> presented = new HashSet<>();
    tokens.forEach(token -> presented.add("Bearer " + token));
    Map<String, Set<String>> tokensBySession = new HashMap<>();
    int echoes = 0;
    int mixed = 0;
    for (ReceivedRequest request : received) {
      assertTrue(
          presented.contains(request.authorization()),
          "an upstream request without a caller's token: " + request.httpMethod());
      if (request.sessionId() != null) {
        tokensBySession
            .computeIfAbsent(request.sessionId(), id -> new HashSet<>())
            .add(request.authorization());
      }
      JsonNode body = request.body().isEmpty() ? null : TestGateway.json(request.body());
      if (body != null && "tools/call".equals(body.path("method").asText())) {
        String message = body.path("params").path("arguments").path("message").asText();
        int token = Integer.parseInt(message.substring(0, message.indexOf('-')));
        echoes++;
        if (!("Bearer " + tokens.get(token)).equals(request.authorization())) {
          mixed++;
        }
      }
    }
    assertEquals(2 * tokens.size() * CALLERS_PER_TOKEN * CALLS_PER_CALLER, echoes);
    assertEquals(0, mixed, "calls that reached the upstream with another caller's token");
    Set<String> tokensWithSessions = new HashSet<>();
    tokensBySession.forEach(
        (session, used) -> {
          assertEquals(1, used.size(), "an upstream session used with two tokens: " + used);
          tokensWithSessions.addAll(used);
        });
    assertEquals(presented, tokensWithSessions, "each token's own upstream sessions");
  }

  /** The operations page shows whom a session acts as; no token in it, metrics, events or logs. */
  @Test
  void noTokenIsShown() {
    String[] bob = {"Authorization", "Bearer " + BOB_TOKEN};
    String session = gateway.initializeWith("/servers/pt/mcp", bob);
    List<String> shown = new ArrayList<>();
    shown.add(
        gateway
            .post(
                "/servers/pt/mcp",
                session,
                TestGateway.callTool(2, FixtureTools.ECHO, "{\"message\":\"2-x\"}"),
                bob)
            .body());
    String sessions = gateway.get("/admin/sessions", bob).body();
    shown.addAll(gateway.operatorViews(bob));
    shown.addAll(logs.lines());
    for (String text : shown) {
      assertFalse(text.contains(BOB_TOKEN), text);
    }
    assertTrue(sessions.contains("pt@bob"), sessions);
  }

  private static String[] bearer(String token) {
    return new String[] {"Authorization", "Bearer " + token};
  }
}
