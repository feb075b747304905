package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.FixtureHttpServer;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.fixture.ReceivedRequest;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.ConnectionLimits;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.NamedToken;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.SessionLimits;
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
import org.slf4j.LoggerFactory;

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
  private final ListAppender<ILoggingEvent> logLines = new ListAppender<>();
  private final Logger rootLogger = (Logger) LoggerFactory.getLogger("dev.mcpsupervisor");
  private Level rootLevel;
  private FixtureHttpServer upstream;
  private TestGateway gateway;

  @BeforeAll
  void start() {
    rootLevel = rootLogger.getLevel();
    rootLogger.setLevel(Level.DEBUG);
    logLines.start();
    rootLogger.addAppender(logLines);
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
            new GatewayConfig(
                "127.0.0.1",
                0,
                List.of(ALICE_TOKEN, ALICE_NEW_TOKEN, BOB_TOKEN),
                List.of(),
                List.of(),
                1024 * 1024,
                Duration.ofMinutes(30),
                List.of(
                    new NamedToken("alice", ALICE_TOKEN),
                    new NamedToken("alice", ALICE_NEW_TOKEN),
                    new NamedToken("bob", BOB_TOKEN)),
                null,
                Map.of(),
                ConnectionLimits.defaults(),
                SessionLimits.defaults(),
                null,
                false),
            passing);
  }

  @AfterAll
  void stop() {
    try {
      gateway.close();
    } finally {
      upstream.close();
      rootLogger.detachAppender(logLines);
      rootLogger.setLevel(rootLevel);
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
          runs.add(CompletableFuture.runAsync(() -> callAsSession(tokens, token, caller), callers));
          runs.add(CompletableFuture.runAsync(() -> callStateless(tokens, token, caller), callers));
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

  /** One session-era caller: a session on /mcp or /servers/pt/mcp, and its calls. */
  private void callAsSession(List<String> tokens, int token, int caller) {
    boolean aggregated = caller % 2 == 0;
    String path = aggregated ? "/mcp" : "/servers/pt/mcp";
    String tool = aggregated ? "pt__" + FixtureTools.ECHO : FixtureTools.ECHO;
    String[] auth = {"Authorization", "Bearer " + tokens.get(token)};
    String session = gateway.initializeWith(path, auth);
    for (int call = 0; call < CALLS_PER_CALLER; call++) {
      String message = token + "-session-" + caller + "-" + call;
      HttpResponse<String> answer =
          gateway.post(
              path,
              session,
              TestGateway.callTool(call + 2, tool, "{\"message\":\"" + message + "\"}"),
              auth);
      assertEquals(message, TestGateway.text(TestGateway.answer(answer)), answer.body());
    }
    assertEquals(200, gateway.delete(path, session, auth).statusCode());
  }

  /** One 2026-07-28 caller's calls, on /mcp or /servers/pt/mcp. */
  private void callStateless(List<String> tokens, int token, int caller) {
    boolean aggregated = caller % 2 == 1;
    String path = aggregated ? "/mcp" : "/servers/pt/mcp";
    String tool = aggregated ? "pt__" + FixtureTools.ECHO : FixtureTools.ECHO;
    StatelessClient client = new StatelessClient(gateway, "{}");
    for (int call = 0; call < CALLS_PER_CALLER; call++) {
      String message = token + "-stateless-" + caller + "-" + call;
      List<String> headers = new ArrayList<>(List.of(StatelessClient.headers("tools/call", tool)));
      headers.addAll(List.of("Authorization", "Bearer " + tokens.get(token)));
      HttpResponse<String> answer =
          gateway.post(
              path,
              null,
              client.toolCall(call, tool, "{\"message\":\"" + message + "\"}", "", ""),
              headers.toArray(String[]::new));
      assertEquals(message, TestGateway.text(TestGateway.answer(answer)), answer.body());
    }
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
    shown.add(sessions);
    shown.add(gateway.get("/admin", bob).body());
    shown.add(gateway.get("/metrics", bob).body());
    gateway.metrics.journal().entries().forEach(entry -> shown.add(entry.toString()));
    List.copyOf(logLines.list).forEach(line -> shown.add(line.getFormattedMessage()));
    for (String text : shown) {
      assertFalse(text.contains(BOB_TOKEN), text);
    }
    assertTrue(sessions.contains("pt@bob"), sessions);
  }
}
