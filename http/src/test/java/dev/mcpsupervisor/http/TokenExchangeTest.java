package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.mcpsupervisor.fixture.FixtureHttpServer;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.fixture.ReceivedRequest;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * {@code tokenExchange} (RFC 8693): each OAuth caller's access token is exchanged at a token
 * endpoint (a JDK HttpServer on 127.0.0.1, which also serves the issuer's keys) for a token of the
 * upstream's, and a Streamable HTTP upstream that records the Authorization header of every request
 * sees each caller's calls with the token exchanged for that caller only; exchanged once per token
 * while it lives, again after it expires; a failing exchange answers its caller only; no token is
 * ever shown.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TokenExchangeTest {

  private static final String ISSUER = "https://issuer.example";
  private static final String RESOURCE = "https://gateway.example/mcp";
  private static final String CLIENT_ID = "gateway-client";
  private static final String CLIENT_SECRET = "client-secret-canary-0123456789";
  private static final String AUDIENCE = "https://upstream.example";

  /** Every exchanged token starts so: the canary looks for it everywhere. */
  private static final String EXCHANGED = "exchanged-canary-";

  private static final int CALLERS_PER_IDENTITY = 20;
  private static final int CALLS_PER_CALLER = 3;

  private final Queue<ReceivedRequest> received = new ConcurrentLinkedQueue<>();

  /** Exchanges the token endpoint answered, per identity. */
  private final Map<String, AtomicInteger> exchanges = new ConcurrentHashMap<>();

  /** Requests to the token endpoint that were not the exchange this gateway must send. */
  private final Queue<String> badExchanges = new ConcurrentLinkedQueue<>();

  /** The lifetime the endpoint gives each identity's tokens, in seconds; absent: an hour. */
  private final Map<String, Integer> lifetimes = Map.of("dave", 2);

  /** Identities the endpoint refuses (400 invalid_grant). */
  private final Set<String> refused = Set.of("carol");

  private final Map<String, String> accessTokens = new HashMap<>();
  private CapturedLogs logs;
  private RSAKey issuerKey;
  private HttpServer authorizationServer;
  private FixtureHttpServer upstream;
  private TestGateway gateway;
  private EchoCallers echoes;

  @BeforeAll
  void start() throws Exception {
    logs = new CapturedLogs();
    issuerKey = new RSAKeyGenerator(2048).keyID("rsa-1").generate();
    for (String identity : List.of("alice", "bob", "carol", "dave")) {
      accessTokens.put(identity, accessToken(identity));
    }
    authorizationServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    byte[] keys =
        new JWKSet(List.of(issuerKey.toPublicJWK())).toString().getBytes(StandardCharsets.UTF_8);
    authorizationServer.createContext("/jwks", exchange -> answer(exchange, 200, keys));
    authorizationServer.createContext("/token", this::exchangeToken);
    authorizationServer.start();
    upstream = FixtureServer.startHttp(0, received::add);
    String base = "http://127.0.0.1:" + authorizationServer.getAddress().getPort();
    SupervisorConfig config =
        ConfigLoader.parse(
            "mcpServers { tx { url = \""
                + upstream.url()
                + "\", tokenExchange { tokenEndpoint = \""
                + base
                + "/token\", audience = \""
                + AUDIENCE
                + "\", scope = \"repo read\", clientId = \""
                + CLIENT_ID
                + "\", clientSecret = \""
                + CLIENT_SECRET
                + "\" } } }\n"
                + "gateway { host = \"127.0.0.1\", port = 0, oauth { issuer = \""
                + ISSUER
                + "\", jwksUri = \""
                + base
                + "/jwks\", resource = \""
                + RESOURCE
                + "\" } }",
            "test");
    gateway = TestGateway.start(config.gateway(), config.servers().get("tx"));
    echoes = new EchoCallers(gateway, "tx", CALLS_PER_CALLER);
  }

  @AfterAll
  void stop() {
    try {
      gateway.close();
    } finally {
      upstream.close();
      authorizationServer.stop(0);
      logs.close();
    }
  }

  @Test
  void racingCallersReachTheUpstreamWithTheTokenExchangedForThemExchangedOnce() throws Exception {
    List<String> identities = List.of("alice", "bob");
    ExecutorService callers = Executors.newFixedThreadPool(2 * CALLERS_PER_IDENTITY);
    try {
      List<CompletableFuture<Void>> runs = new ArrayList<>();
      for (int i = 0; i < CALLERS_PER_IDENTITY; i++) {
        for (String identity : identities) {
          int caller = i;
          runs.add(
              CompletableFuture.runAsync(
                  () -> echoes.asSession(identity, caller, bearer(identity)), callers));
          runs.add(
              CompletableFuture.runAsync(
                  () -> echoes.stateless(identity, caller, bearer(identity)), callers));
        }
      }
      CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(100, TimeUnit.SECONDS);
    } finally {
      callers.shutdownNow();
    }

    int echoes = 0;
    int mixed = 0;
    for (ReceivedRequest request : received) {
      JsonNode body = request.body().isEmpty() ? null : TestGateway.json(request.body());
      if (body == null || !"tools/call".equals(body.path("method").asText())) {
        continue;
      }
      String message = body.path("params").path("arguments").path("message").asText();
      String identity = message.substring(0, message.indexOf('-'));
      if (!identities.contains(identity) || !message.matches("[a-z]+-(session|stateless)-.*")) {
        continue; // another test's calls
      }
      echoes++;
      if (!String.valueOf(request.authorization())
          .startsWith("Bearer " + exchanged(identity, ""))) {
        mixed++;
      }
    }
    assertEquals(2 * identities.size() * CALLERS_PER_IDENTITY * CALLS_PER_CALLER, echoes);
    assertEquals(0, mixed, "calls that reached the upstream without their caller's token");
    for (ReceivedRequest request : received) {
      assertTrue(
          String.valueOf(request.authorization()).startsWith("Bearer " + EXCHANGED),
          "an upstream request without an exchanged token: " + request.httpMethod());
    }
    for (String identity : identities) {
      assertEquals(1, exchanges.get(identity).get(), identity + "'s token exchanged once");
    }
    assertEquals(List.of(), List.copyOf(badExchanges));
  }

  @Test
  void anExpiredTokenIsExchangedAgain() {
    String[] dave = bearer("dave");
    String session = gateway.initializeWith("/servers/tx/mcp", dave);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    int call = 0;
    // dave's tokens live 2 s: calls go on until the upstream sees the second one
    while (!upstreamSaw(exchanged("dave", "2"))) {
      assertTrue(System.nanoTime() < deadline, "no second token of dave's within 30 s");
      String message = "dave-expiry-" + call;
      HttpResponse<String> answer =
          gateway.post(
              "/servers/tx/mcp",
              session,
              TestGateway.callTool(
                  ++call + 1, FixtureTools.ECHO, "{\"message\":\"" + message + "\"}"),
              dave);
      assertEquals(message, TestGateway.text(TestGateway.answer(answer)), answer.body());
    }
    assertTrue(exchanges.get("dave").get() >= 2);
  }

  @Test
  void aFailingExchangeAnswersItsCallerOnly() {
    String[] carol = bearer("carol");
    String session = gateway.initializeWith("/mcp", carol);
    HttpResponse<String> refusal =
        gateway.post(
            "/mcp",
            session,
            TestGateway.callTool(2, "tx__" + FixtureTools.ECHO, "{\"message\":\"carol-1\"}"),
            carol);
    JsonNode error = TestGateway.answer(refusal).path("error");
    assertEquals(JsonRpcErrorCodes.MISSING_CREDENTIAL, error.path("code").asInt(), refusal.body());
    assertTrue(error.path("message").asText().contains("tx"), refusal.body());
    assertTrue(error.path("message").asText().contains("tokenExchange"), refusal.body());
    assertFalse(refusal.body().contains(CLIENT_SECRET), refusal.body());

    String[] alice = bearer("alice");
    String aliceSession = gateway.initializeWith("/servers/tx/mcp", alice);
    HttpResponse<String> served =
        gateway.post(
            "/servers/tx/mcp",
            aliceSession,
            TestGateway.callTool(2, FixtureTools.ECHO, "{\"message\":\"alice-beside-carol\"}"),
            alice);
    assertEquals("alice-beside-carol", TestGateway.text(TestGateway.answer(served)), served.body());
  }

  /** No access token, exchanged token or client secret in answers, pages, metrics, events, logs. */
  @Test
  void noTokenIsShown() {
    String[] bob = bearer("bob");
    String session = gateway.initializeWith("/servers/tx/mcp", bob);
    List<String> shown = new ArrayList<>();
    shown.add(
        gateway
            .post(
                "/servers/tx/mcp",
                session,
                TestGateway.callTool(2, FixtureTools.ECHO, "{\"message\":\"bob-canary\"}"),
                bob)
            .body());
    String carolSession = gateway.initializeWith("/mcp", bearer("carol"));
    shown.add(
        gateway
            .post(
                "/mcp",
                carolSession,
                TestGateway.callTool(
                    2, "tx__" + FixtureTools.ECHO, "{\"message\":\"carol-canary\"}"),
                bearer("carol"))
            .body());
    String sessions = gateway.get("/admin/sessions", bob).body();
    shown.addAll(gateway.operatorViews(bob));
    shown.addAll(logs.lines());
    for (String text : shown) {
      assertFalse(text.contains(EXCHANGED), text);
      assertFalse(text.contains(CLIENT_SECRET), text);
      accessTokens.values().forEach(token -> assertFalse(text.contains(token), text));
    }
    assertTrue(sessions.contains("tx@bob"), sessions);
  }

  private boolean upstreamSaw(String token) {
    return received.stream().anyMatch(r -> ("Bearer " + token).equals(r.authorization()));
  }

  private String[] bearer(String identity) {
    return new String[] {"Authorization", "Bearer " + accessTokens.get(identity)};
  }

  private static String exchanged(String identity, String count) {
    return EXCHANGED + identity + "-" + count;
  }

  /** The token endpoint: checks the exchange request, answers a token of the caller's. */
  private void exchangeToken(HttpExchange exchange) throws IOException {
    Map<String, String> form = new HashMap<>();
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    for (String field : body.split("&")) {
      String[] pair = field.split("=", 2);
      form.put(
          URLDecoder.decode(pair[0], StandardCharsets.UTF_8),
          URLDecoder.decode(pair.length > 1 ? pair[1] : "", StandardCharsets.UTF_8));
    }
    String client =
        "Basic "
            + Base64.getEncoder()
                .encodeToString((CLIENT_ID + ":" + CLIENT_SECRET).getBytes(StandardCharsets.UTF_8));
    String identity =
        accessTokens.entrySet().stream()
            .filter(entry -> entry.getValue().equals(form.get("subject_token")))
            .map(Map.Entry::getKey)
            .findFirst()
            .orElse(null);
    if (!client.equals(exchange.getRequestHeaders().getFirst("Authorization"))
        || !"urn:ietf:params:oauth:grant-type:token-exchange".equals(form.get("grant_type"))
        || !"urn:ietf:params:oauth:token-type:access_token".equals(form.get("subject_token_type"))
        || !AUDIENCE.equals(form.get("audience"))
        || !"repo read".equals(form.get("scope"))
        || identity == null) {
      badExchanges.add(form.keySet().toString());
      answer(exchange, 401, "{\"error\":\"invalid_client\"}".getBytes(StandardCharsets.UTF_8));
      return;
    }
    if (refused.contains(identity)) {
      answer(exchange, 400, "{\"error\":\"invalid_grant\"}".getBytes(StandardCharsets.UTF_8));
      return;
    }
    int count = exchanges.computeIfAbsent(identity, name -> new AtomicInteger()).incrementAndGet();
    String token =
        "{\"access_token\":\""
            + exchanged(identity, String.valueOf(count))
            + "\",\"issued_token_type\":\"urn:ietf:params:oauth:token-type:access_token\","
            + "\"token_type\":\"Bearer\",\"expires_in\":"
            + lifetimes.getOrDefault(identity, 3600)
            + "}";
    answer(exchange, 200, token.getBytes(StandardCharsets.UTF_8));
  }

  private static void answer(HttpExchange exchange, int status, byte[] body) throws IOException {
    try (exchange) {
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, body.length);
      exchange.getResponseBody().write(body);
    }
  }

  private String accessToken(String identity) throws Exception {
    JWTClaimsSet claims =
        new JWTClaimsSet.Builder()
            .issuer(ISSUER)
            .subject(identity)
            .audience(RESOURCE)
            .issueTime(new Date())
            .expirationTime(Date.from(Instant.now().plusSeconds(600)))
            .build();
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.RS256)
                .keyID(issuerKey.getKeyID())
                .type(JOSEObjectType.JWT)
                .build(),
            claims);
    jwt.sign(new RSASSASigner(issuerKey));
    return jwt.serialize();
  }
}
