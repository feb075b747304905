package dev.mcpsupervisor.protocol.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** authTokens with names, the oauth section and per-identity policies, read and validated. */
class AuthConfigReaderTest {

  private static final String TOKEN_A = "a".repeat(32);
  private static final String TOKEN_B = "b".repeat(32);

  @Test
  void tokensAreStringsOrNamedObjects() {
    GatewayConfig gateway =
        load("authTokens = [\"" + TOKEN_A + "\", {name = ci, token = \"" + TOKEN_B + "\"}]");
    assertEquals(List.of(TOKEN_A, TOKEN_B), gateway.authTokens());
    assertEquals(
        List.of(new NamedToken("token-1", TOKEN_A), new NamedToken("ci", TOKEN_B)),
        gateway.namedTokens());
    assertTrue(gateway.requiresAuthentication());
    assertFalse(gateway.toString().contains(TOKEN_A), "a token is never printed");
    assertFalse(gateway.namedTokens().toString().contains(TOKEN_B), "a token is never printed");
  }

  @Test
  void theOldConstructorNamesTokensByPosition() {
    GatewayConfig gateway =
        GatewayConfig.builder()
            .host("127.0.0.1")
            .port(0)
            .authTokens(List.of(TOKEN_A))
            .maxBodyBytes(1)
            .sessionIdleTimeout(Duration.ofMinutes(1))
            .build();
    assertEquals(List.of(new NamedToken("token-1", TOKEN_A)), gateway.namedTokens());
    assertNull(gateway.oauth());
    assertEquals(gateway.namedTokens(), gateway.withAddress("::1", 9).namedTokens());
  }

  @Test
  void oauthTakesDefaultsAndCountsAsAuthentication() {
    GatewayConfig gateway =
        load(
            "oauth { issuer = \"https://issuer.example\", jwksUri ="
                + " \"https://issuer.example/jwks\", resource = \"https://gw.example/mcp\" }");
    OAuthConfig oauth = gateway.oauth();
    assertEquals("https://gw.example/mcp", oauth.audience(), "the audience defaults to resource");
    assertEquals(URI.create("https://issuer.example/jwks"), oauth.jwksUri());
    Config defaults = ConfigLoader.reference().getConfig(ConfigLoader.OAUTH_DEFAULTS);
    assertEquals(defaults.getString("identityClaim"), oauth.identityClaim());
    assertEquals(defaults.getStringList("requiredScopes"), oauth.requiredScopes());
    assertEquals(defaults.getDuration("jwksTimeout"), oauth.jwksTimeout());
    assertEquals(defaults.getDuration("jwksCacheTtl"), oauth.jwksCacheTtl());
    assertTrue(gateway.requiresAuthentication());
    assertTrue(
        BindSafety.refusal(gateway.withAddress("0.0.0.0", 0), false)
            .orElseThrow()
            .contains("allowedHosts"),
        "OAuth alone is authentication enough for a non-loopback bind; only the hosts are missing");
  }

  @Test
  void identitiesRestrictServersAndNameKnownIdentities() {
    GatewayConfig gateway =
        load(
            "authTokens = [{name = ci, token = \""
                + TOKEN_A
                + "\"}], identities { ci { servers = [one] } }");
    IdentityPolicy ci = gateway.identities().get("ci");
    assertTrue(ci.mayUse("one"));
    assertFalse(ci.mayUse("two"));
  }

  @Test
  void brokenSettingsAreRefusedWithTheirPath() {
    assertRefused(
        "authTokens = [{name = ci}]",
        "gateway.authTokens[0]: must have a name and a token, e.g. {name = ci, token = \"...\"}");
    assertRefused(
        "authTokens = [{name = ci, token = \""
            + TOKEN_A
            + "\"}, {name = ci, token = \""
            + TOKEN_B
            + "\"}]",
        "gateway.authTokens[1]: another token is named \"ci\"");
    assertRefused(
        "authTokens = [{name = ci, token = short-one}]",
        "gateway.authTokens[0].token: must be at least 32 characters, this one has 9 (e.g. openssl"
            + " rand -base64 32)");
    assertRefused(
        "authTokens = [{name = ci, token = \""
            + TOKEN_A
            + "\"}], identities { cj { servers = [one] } }",
        "gateway.identities.cj: no token is named \"cj\" (name tokens as authTokens = [{name ="
            + " \"cj\", token = \"...\"}], or configure gateway.oauth)");
    assertRefused(
        "authTokens = [{name = ci, token = \""
            + TOKEN_A
            + "\"}], identities { ci { servers = [three] } }",
        "gateway.identities.ci.servers[0]: no server is named \"three\"");
    assertRefused(
        "oauth { issuer = i, jwksUri = \"http://keys.example/jwks\", resource = \"https://gw.example/mcp\" }",
        "gateway.oauth.jwksUri: must use https (plain http only on a loopback address)");
    assertRefused(
        "oauth { issuer = i, jwksUri = \"https://keys.example/jwks\" }",
        "gateway.oauth.resource: missing");
  }

  private static void assertRefused(String gatewayFields, String expected) {
    ConfigException error = assertThrows(ConfigException.class, () -> load(gatewayFields));
    assertEquals("t.conf: " + expected, error.getMessage());
  }

  private static GatewayConfig load(String gatewayFields) {
    return ConfigLoader.parse(
            "mcpServers { one { command = x }, two { command = y } }\ngateway { "
                + gatewayFields
                + " }",
            "t.conf")
        .gateway();
  }
}
