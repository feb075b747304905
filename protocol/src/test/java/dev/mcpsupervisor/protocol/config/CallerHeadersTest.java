package dev.mcpsupervisor.protocol.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CallerHeadersTest {

  private static final String TOKEN = "a-gateway-token-of-at-least-32-characters";

  private static String config(String gateway) {
    return "mcpServers { github { url = \"https://api.example.com/mcp\", headers {"
        + " Authorization = \"Bearer ${identity:github_token}\", X-Org = \"${identity:org}\" } } }\n"
        + "gateway { "
        + gateway
        + " }";
  }

  @Test
  void aHeaderThatNamesTheCallerIsReadAndItsNamesKnown() {
    SupervisorConfig loaded =
        ConfigLoader.parse(config("authTokens = [{ name = alice, token = " + TOKEN + " }]"), "t");
    ServerConfig github = loaded.servers().get("github");
    assertTrue(CallerHeaders.actsAsCaller(github));
    assertEquals(Set.of("github_token", "org"), CallerHeaders.namesIn(github));
  }

  @Test
  void aServerThatActsAsItsCallerNeedsAuthentication() {
    ConfigException refused =
        assertThrows(ConfigException.class, () -> ConfigLoader.parse(config(""), "t"));
    assertTrue(refused.getMessage().contains("needs authenticated callers"), refused.getMessage());
    assertTrue(refused.getMessage().contains("mcpServers.github.headers"), refused.getMessage());
  }

  @Test
  void onlyHeadersMayNameTheCaller() {
    ConfigException refused =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.parse(
                    "mcpServers { local { command = x, env { T = \"${identity:t}\" } } }\n"
                        + "gateway { authTokens = [\""
                        + TOKEN
                        + "\"] }",
                    "t"));
    assertTrue(refused.getMessage().contains("client-side variable"), refused.getMessage());
  }

  @Test
  void theFingerprintCoversTheSecretsFileWithoutShowingAValue(@TempDir Path dir)
      throws IOException {
    Path secrets = dir.resolve("secrets.conf");
    Path config = dir.resolve("gateway.conf");
    Files.writeString(
        config,
        "mcpServers { gh { url = \"https://api.example.com/mcp\","
            + " headers { Authorization = \"Bearer ${identity:github_token}\" } } }\n"
            + "gateway { authTokens = [{ name = alice, token = \""
            + TOKEN
            + "\" }], identitySecrets = \""
            + secrets.toString().replace("\\", "\\\\")
            + "\" }");
    Files.writeString(secrets, "alice { github_token = \"first\" }");
    ConfigLoader.Loaded first = ConfigLoader.loadWithFingerprint(config);
    assertEquals(secrets, first.config().gateway().identitySecrets().file());
    assertEquals(first.fingerprint(), ConfigLoader.loadWithFingerprint(config).fingerprint());
    Files.writeString(secrets, "alice { github_token = \"second\" }");
    String rotated = ConfigLoader.loadWithFingerprint(config).fingerprint();
    assertFalse(first.fingerprint().equals(rotated), "a rotated value, another fingerprint");
    assertFalse(rotated.contains("second"));
  }

  @Test
  void eachIdentityGetsItsOwnValuesOrTheFirstNameItLacks(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("secrets.conf");
    Files.writeString(
        file,
        "alice { github_token = \"ghp-alice\", org = acme }\n"
            + "bob { github_token = \"ghp-bob\" }\n");
    SupervisorConfig loaded =
        ConfigLoader.parse(
            config(
                "authTokens = [{ name = alice, token = "
                    + TOKEN
                    + " }], identitySecrets = \""
                    + file
                    + "\""),
            "t");
    IdentitySecrets secrets = loaded.gateway().identitySecrets();
    ServerConfig github = loaded.servers().get("github");

    CallerHeaders.Resolution alice = CallerHeaders.resolve(github, "alice", null, secrets);
    ServerSpec.StreamableHttp spec =
        (ServerSpec.StreamableHttp)
            assertInstanceOf(CallerHeaders.Resolution.Resolved.class, alice).server().spec();
    assertEquals(Map.of("Authorization", "Bearer ghp-alice", "X-Org", "acme"), spec.headers());
    assertFalse(CallerHeaders.actsAsCaller(((CallerHeaders.Resolution.Resolved) alice).server()));

    assertEquals(
        new CallerHeaders.Resolution.Missing("org"),
        CallerHeaders.resolve(github, "bob", null, secrets));
    assertInstanceOf(
        CallerHeaders.Resolution.Missing.class,
        CallerHeaders.resolve(github, "carol", null, secrets));
    assertInstanceOf(
        CallerHeaders.Resolution.Missing.class, CallerHeaders.resolve(github, null, null, secrets));
    assertFalse(secrets.toString().contains("ghp"), secrets.toString());
    assertFalse(loaded.gateway().toString().contains("ghp"), loaded.gateway().toString());
  }

  @Test
  void aValueWithALineBreakIsRefusedWithoutShowingIt(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("secrets.conf");
    Files.writeString(file, "alice { github_token = \"ghp-secret\\r\\nX-Injected: 1\" }\n");
    ConfigException refused =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.parse(
                    config(
                        "authTokens = [{ name = alice, token = "
                            + TOKEN
                            + " }], identitySecrets = \""
                            + file
                            + "\""),
                    "t"));
    assertTrue(refused.getMessage().contains("line breaks"), refused.getMessage());
    assertFalse(refused.getMessage().contains("ghp-secret"), refused.getMessage());
  }

  private static final String PASSING =
      "mcpServers { internal { url = \"https://internal.example.com/mcp\", passCallerToken = true"
          + " } }\n";

  @Test
  void passCallerTokenFillsAuthorizationWithTheCallersOwnToken() {
    ServerConfig internal =
        ConfigLoader.parse(PASSING + "gateway { authTokens = [\"" + TOKEN + "\"] }", "t")
            .servers()
            .get("internal");
    assertTrue(CallerHeaders.passesCallerToken(internal));
    assertTrue(CallerHeaders.actsAsCaller(internal));
    assertEquals(Set.of(), CallerHeaders.namesIn(internal));
    ServerConfig asAlice =
        assertInstanceOf(
                CallerHeaders.Resolution.Resolved.class,
                CallerHeaders.resolve(internal, "alice", "alice-token", IdentitySecrets.NONE))
            .server();
    assertEquals(
        Map.of("Authorization", "Bearer alice-token"),
        ((ServerSpec.StreamableHttp) asAlice.spec()).headers());
    assertInstanceOf(
        CallerHeaders.Resolution.NoToken.class,
        CallerHeaders.resolve(internal, "alice", null, IdentitySecrets.NONE));
    // two tokens of one identity: two servers, so two keys and never one upstream session
    ServerConfig otherToken =
        ((CallerHeaders.Resolution.Resolved)
                CallerHeaders.resolve(internal, "alice", "alice-token-2", IdentitySecrets.NONE))
            .server();
    assertFalse(asAlice.key().equals(otherToken.key()));
  }

  @Test
  void passCallerTokenIsRefusedWithoutAuthenticationNamingTheServer() {
    ConfigException refused =
        assertThrows(ConfigException.class, () -> ConfigLoader.parse(PASSING + "gateway { }", "t"));
    assertTrue(
        refused.getMessage().contains("mcpServers.internal.passCallerToken"), refused.getMessage());
    assertTrue(refused.getMessage().contains("needs authenticated callers"), refused.getMessage());
  }

  @Test
  void passCallerTokenRefusesAnAuthorizationHeaderOfItsOwn() {
    ConfigException refused =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.parse(
                    "mcpServers { internal { url = \"https://internal.example.com/mcp\","
                        + " passCallerToken = true, headers { authorization = \"Bearer x\" } } }\n"
                        + "gateway { authTokens = [\""
                        + TOKEN
                        + "\"] }",
                    "t"));
    assertTrue(refused.getMessage().contains("passCallerToken"), refused.getMessage());
  }

  private static final String OAUTH =
      "gateway { oauth { issuer = \"https://login.example.com\","
          + " jwksUri = \"https://login.example.com/jwks.json\","
          + " resource = \"https://gateway.example.com/mcp\" } }";

  private static String exchanging(String more) {
    return "mcpServers { gh { url = \"https://api.example.com/mcp\"" + more + " } }\n";
  }

  private static final String EXCHANGE =
      ", tokenExchange { tokenEndpoint = \"https://login.example.com/token\","
          + " audience = \"https://api.example.com\", clientId = gw, clientSecret = s3cret-value }";

  @Test
  void tokenExchangeKeysPerCallerTokenWhichOnlyTheConnectorSees() {
    ServerConfig gh = ConfigLoader.parse(exchanging(EXCHANGE) + OAUTH, "t").servers().get("gh");
    assertTrue(CallerHeaders.exchangesCallerToken(gh));
    assertTrue(CallerHeaders.passesCallerToken(gh), "keyed per identity and token");
    ServerSpec.StreamableHttp spec = (ServerSpec.StreamableHttp) gh.spec();
    assertEquals("https://api.example.com", spec.tokenExchange().audience());
    assertEquals(null, spec.tokenExchange().scope());
    assertFalse(spec.toString().contains("s3cret-value"), spec.toString());
    ServerConfig asAlice =
        ((CallerHeaders.Resolution.Resolved)
                CallerHeaders.resolve(gh, "alice", "alice-token", IdentitySecrets.NONE))
            .server();
    ServerSpec.StreamableHttp resolved = (ServerSpec.StreamableHttp) asAlice.spec();
    assertEquals(Map.of("Authorization", "Bearer alice-token"), resolved.headers());
    assertEquals(spec.tokenExchange(), resolved.tokenExchange(), "kept in the caller's copy");
    assertEquals(
        spec.tokenExchange(),
        ((ServerSpec.StreamableHttp) gh.forSessionEraCallers().spec()).tokenExchange());
    ServerConfig otherSecret =
        ConfigLoader.parse(exchanging(EXCHANGE.replace("s3cret-value", "other")) + OAUTH, "t")
            .servers()
            .get("gh");
    assertFalse(gh.key().equals(otherSecret.key()), "the exchange is in the server's key");
  }

  @Test
  void tokenExchangeIsRefusedWithoutOAuthBesidePassCallerTokenOrAnAuthorizationHeader() {
    List<String> refusals =
        List.of(
            exchanging(EXCHANGE) + "gateway { authTokens = [\"" + TOKEN + "\"] }",
            exchanging(EXCHANGE + ", passCallerToken = true") + OAUTH,
            exchanging(EXCHANGE + ", headers { Authorization = \"Bearer x\" }") + OAUTH,
            exchanging(EXCHANGE + ", transport = sse") + OAUTH,
            exchanging(EXCHANGE.replace("https://login", "http://login")) + OAUTH,
            exchanging(EXCHANGE.replace("clientSecret = s3cret-value", "")) + OAUTH);
    List<String> expected =
        List.of(
            "mcpServers.gh.tokenExchange: needs OAuth callers",
            "mcpServers.gh.tokenExchange: sends an exchanged token",
            "mcpServers.gh.tokenExchange: sets the Authorization header",
            "mcpServers.gh.tokenExchange: only for streamable-http servers",
            "mcpServers.gh.tokenExchange.tokenEndpoint: must use https",
            "mcpServers.gh.tokenExchange.clientSecret: missing");
    for (int i = 0; i < refusals.size(); i++) {
      String config = refusals.get(i);
      ConfigException refused =
          assertThrows(ConfigException.class, () -> ConfigLoader.parse(config, "t"), config);
      assertTrue(refused.getMessage().contains(expected.get(i)), refused.getMessage());
      assertFalse(refused.getMessage().contains("s3cret-value"), refused.getMessage());
    }
    ConfigException onStdio =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.parse(
                    "mcpServers { gh { command = x" + EXCHANGE + " } }\n" + OAUTH, "t"));
    assertTrue(
        onStdio.getMessage().contains("mcpServers.gh.tokenExchange: only for url servers"),
        onStdio.getMessage());
  }
}
