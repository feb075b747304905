package dev.mcpsupervisor.http.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.mcpsupervisor.protocol.config.OAuthConfig;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The parts of access token checking that need no gateway. */
class AccessTokensTest {

  @Test
  void keysThatCannotBeFetchedLeaveTheTokenUnchecked() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    AccessTokens tokens =
        new AccessTokens(
            new OAuthConfig(
                "https://issuer.example",
                URI.create("http://127.0.0.1:" + closedPort + "/jwks"),
                "https://gw.example/mcp",
                URI.create("https://gw.example/mcp"),
                List.of(),
                "sub",
                Duration.ofSeconds(2),
                Duration.ofMinutes(5)));
    RSAKey key = new RSAKeyGenerator(2048).keyID("k").generate();
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("k").build(),
            new JWTClaimsSet.Builder()
                .issuer("https://issuer.example")
                .subject("alice")
                .audience("https://gw.example/mcp")
                .expirationTime(Date.from(Instant.now().plusSeconds(60)))
                .build());
    jwt.sign(new RSASSASigner(key));
    assertInstanceOf(AccessTokens.Verdict.KeysUnavailable.class, tokens.verify(jwt.serialize()));
  }

  @Test
  void onlyThreeDottedPartsLookLikeAJwt() {
    assertTrue(AccessTokens.looksLikeJwt("a.b.c"));
    assertTrue(
        AccessTokens.looksLikeJwt("header.payload."), "an unsigned JWT is still refused later");
    assertFalse(AccessTokens.looksLikeJwt("opaque-token-0123456789"));
    assertFalse(AccessTokens.looksLikeJwt("a.b"));
    assertFalse(AccessTokens.looksLikeJwt("a.b.c.d.e"), "an encrypted JWT (JWE) is not accepted");
    assertFalse(AccessTokens.looksLikeJwt(".b.c"));
  }

  @Test
  void theMetadataUrlPutsTheWellKnownPathBeforeTheResourcesPath() {
    assertEquals(
        "https://gw.example/.well-known/oauth-protected-resource/mcp",
        ProtectedResource.metadataUrlOf(URI.create("https://gw.example/mcp")));
    assertEquals(
        "https://gw.example:8443/.well-known/oauth-protected-resource",
        ProtectedResource.metadataUrlOf(URI.create("https://gw.example:8443/")));
    assertEquals(
        "https://gw.example/.well-known/oauth-protected-resource",
        ProtectedResource.metadataUrlOf(URI.create("https://gw.example")));
  }
}
