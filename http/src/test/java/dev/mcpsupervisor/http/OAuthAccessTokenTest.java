package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.json;
import static dev.mcpsupervisor.http.TestGateway.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.NamedToken;
import dev.mcpsupervisor.protocol.config.OAuthConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * OAuth 2.1 access tokens: JWTs signed by keys the issuer publishes in a JWKS (served here by a JDK
 * HttpServer on 127.0.0.1 with keys made by the test) are accepted when valid; everything else gets
 * 401 with a challenge that points to the protected resource metadata; a missing scope gets 403.
 * The token never reaches an upstream.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OAuthAccessTokenTest {

  private static final String ISSUER = "https://issuer.example";
  private static final String RESOURCE = "https://gateway.example/mcp";
  private static final String STATIC_TOKEN = "static-token-0123456789abcdef0123456";
  private static final String METADATA_URL =
      "https://gateway.example/.well-known/oauth-protected-resource/mcp";

  private RSAKey rsaKey;
  private ECKey ecKey;
  private RSAKey unpublishedKey;
  private HttpServer jwks;
  private final AtomicInteger jwksFetches = new AtomicInteger();
  private CountingUpstream upstream;
  private TestGateway gateway;

  @BeforeAll
  void start() throws Exception {
    rsaKey = new RSAKeyGenerator(2048).keyID("rsa-1").generate();
    ecKey = new ECKeyGenerator(Curve.P_256).keyID("ec-1").generate();
    unpublishedKey = new RSAKeyGenerator(2048).keyID("rsa-1").generate();
    byte[] keys =
        new JWKSet(List.of(rsaKey.toPublicJWK(), ecKey.toPublicJWK()))
            .toString()
            .getBytes(StandardCharsets.UTF_8);
    jwks = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    jwks.createContext(
        "/jwks",
        exchange -> {
          try (exchange) {
            jwksFetches.incrementAndGet();
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, keys.length);
            exchange.getResponseBody().write(keys);
          }
        });
    jwks.start();
    upstream = new CountingUpstream(List.of("echo"));
    OAuthConfig oauth =
        new OAuthConfig(
            ISSUER,
            URI.create("http://127.0.0.1:" + jwks.getAddress().getPort() + "/jwks"),
            RESOURCE,
            URI.create(RESOURCE),
            List.of("mcp:tools"),
            "sub",
            Duration.ofSeconds(5),
            Duration.ofMinutes(5));
    GatewayConfig config =
        GatewayConfig.builder()
            .host("127.0.0.1")
            .port(0)
            .maxBodyBytes(1024 * 1024)
            .sessionIdleTimeout(Duration.ofMinutes(30))
            .namedTokens(List.of(new NamedToken("ops", STATIC_TOKEN)))
            .oauth(oauth)
            .build();
    gateway = TestGateway.start(config, TestGateway.streamableHttp("up", upstream.url()));
  }

  @AfterAll
  void stop() throws IOException {
    gateway.close();
    upstream.close();
    jwks.stop(0);
  }

  @Test
  void aValidTokenIsServedAndNeverReachesTheUpstream() throws Exception {
    for (JWTClaimsSet.Builder claims :
        List.of(valid(), valid().claim("scope", "openid mcp:tools"))) {
      String token = sign(claims.build(), rsaKey, JWSAlgorithm.RS256);
      String session = gateway.initializeWith("/mcp", "Authorization", "Bearer " + token);
      HttpResponse<String> listed =
          gateway.post(
              "/mcp", session, request(2, "tools/list", "{}"), "Authorization", "Bearer " + token);
      assertEquals(200, listed.statusCode(), listed.body());
      assertTrue(listed.body().contains("up__echo"), listed.body());
      assertTrue(upstream.count("initialize") > 0);
      assertTrue(
          upstream.headerValues.stream().noneMatch(value -> value.contains(token)),
          "no header an upstream got carries the access token");
    }
    String es256 = sign(valid().build(), ecKey, JWSAlgorithm.ES256);
    assertEquals(200, initialize(es256).statusCode(), "ES256 is accepted too");
    assertEquals(200, initialize(STATIC_TOKEN).statusCode(), "static tokens still work beside");
    int fetches = jwksFetches.get();
    for (int i = 0; i < 20; i++) {
      assertEquals(200, initialize(sign(valid().build(), rsaKey, JWSAlgorithm.RS256)).statusCode());
    }
    assertEquals(fetches, jwksFetches.get(), "known keys come from the cache");
  }

  @Test
  void invalidTokensGet401PointingToTheMetadata() throws Exception {
    Map<String, String> invalid =
        Map.of(
            "wrong audience",
            sign(valid().audience("https://other.example/mcp").build(), rsaKey, JWSAlgorithm.RS256),
            "wrong issuer",
            sign(valid().issuer("https://evil.example").build(), rsaKey, JWSAlgorithm.RS256),
            "expired",
            sign(
                valid().expirationTime(Date.from(Instant.now().minusSeconds(600))).build(),
                rsaKey,
                JWSAlgorithm.RS256),
            "not yet valid",
            sign(
                valid().notBeforeTime(Date.from(Instant.now().plusSeconds(600))).build(),
                rsaKey,
                JWSAlgorithm.RS256),
            "bad signature (same kid, another key)",
            sign(valid().build(), unpublishedKey, JWSAlgorithm.RS256),
            "unknown kid",
            sign(
                valid().build(),
                new RSAKeyGenerator(2048).keyID("nobody").generate(),
                JWSAlgorithm.RS256),
            "no subject",
            sign(valid().subject(null).build(), rsaKey, JWSAlgorithm.RS256),
            "not a JWT",
            "just-some-opaque-token-0123456789abcdef");
    invalid.forEach(
        (why, token) -> {
          HttpResponse<String> response = initialize(token);
          assertEquals(401, response.statusCode(), why + ": " + response.body());
          String challenge = response.headers().firstValue("WWW-Authenticate").orElse("");
          assertTrue(challenge.startsWith("Bearer"), why + ": " + challenge);
          assertTrue(
              hasParameter(challenge, "resource_metadata", METADATA_URL), why + ": " + challenge);
          assertTrue(hasParameter(challenge, "error", "invalid_token"), why + ": " + challenge);
          assertFalse(response.body().contains(token), why);
        });
    HttpResponse<String> none =
        gateway.post("/mcp", null, TestGateway.initializeBody("2025-11-25", "{}"));
    assertEquals(401, none.statusCode());
    String challenge = none.headers().firstValue("WWW-Authenticate").orElse("");
    assertTrue(hasParameter(challenge, "resource_metadata", METADATA_URL), challenge);
    assertFalse(challenge.contains("error="), "no token presented, no error: " + challenge);
  }

  @Test
  void aTokenWithoutTheRequiredScopeGets403() throws Exception {
    String token = sign(valid().claim("scope", "openid").build(), rsaKey, JWSAlgorithm.RS256);
    HttpResponse<String> response = initialize(token);
    assertEquals(403, response.statusCode(), response.body());
    String challenge = response.headers().firstValue("WWW-Authenticate").orElse("");
    assertTrue(hasParameter(challenge, "error", "insufficient_scope"), challenge);
    assertTrue(hasParameter(challenge, "scope", "mcp:tools"), challenge);
    assertTrue(hasParameter(challenge, "resource_metadata", METADATA_URL), challenge);
  }

  @Test
  void theProtectedResourceMetadataIsPublishedWithoutAToken() {
    for (String path :
        List.of(
            "/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp")) {
      HttpResponse<String> response = gateway.get(path);
      assertEquals(200, response.statusCode(), path);
      JsonNode document = json(response.body());
      assertEquals(RESOURCE, document.path("resource").asText());
      assertEquals(ISSUER, document.path("authorization_servers").path(0).asText());
      assertEquals("mcp:tools", document.path("scopes_supported").path(0).asText());
      assertEquals("header", document.path("bearer_methods_supported").path(0).asText());
    }
  }

  @Test
  void sessionsOfOneSubjectSurviveATokenRefreshButNotAnotherSubject() throws Exception {
    String first = sign(valid().build(), rsaKey, JWSAlgorithm.RS256);
    String session = gateway.initializeWith("/mcp", "Authorization", "Bearer " + first);
    String refreshed = sign(valid().jwtID("refreshed").build(), ecKey, JWSAlgorithm.ES256);
    assertEquals(
        200,
        gateway
            .post("/mcp", session, request(3, "ping", "{}"), "Authorization", "Bearer " + refreshed)
            .statusCode());
    String mallory = sign(valid().subject("mallory").build(), rsaKey, JWSAlgorithm.RS256);
    assertEquals(
        404,
        gateway
            .post("/mcp", session, request(4, "ping", "{}"), "Authorization", "Bearer " + mallory)
            .statusCode());
  }

  /** A challenge parameter, written as a token or a quoted string (RFC 9110 allows both). */
  private static boolean hasParameter(String challenge, String name, String value) {
    return challenge.contains(name + "=\"" + value + "\"")
        || challenge.contains(name + "=" + value);
  }

  private HttpResponse<String> initialize(String token) {
    return gateway.post(
        "/mcp",
        null,
        TestGateway.initializeBody("2025-11-25", "{}"),
        "Authorization",
        "Bearer " + token);
  }

  private static JWTClaimsSet.Builder valid() {
    return new JWTClaimsSet.Builder()
        .issuer(ISSUER)
        .subject("alice")
        .audience(RESOURCE)
        .claim("scope", "mcp:tools")
        .issueTime(new Date())
        .expirationTime(Date.from(Instant.now().plusSeconds(300)));
  }

  private static String sign(JWTClaimsSet claims, com.nimbusds.jose.jwk.JWK key, JWSAlgorithm alg)
      throws JOSEException {
    JWSSigner signer =
        key instanceof RSAKey rsa ? new RSASSASigner(rsa) : new ECDSASigner((ECKey) key);
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(alg).keyID(key.getKeyID()).type(JOSEObjectType.JWT).build(),
            claims);
    jwt.sign(signer);
    return jwt.serialize();
  }
}
