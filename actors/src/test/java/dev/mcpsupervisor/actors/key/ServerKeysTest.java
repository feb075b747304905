package dev.mcpsupervisor.actors.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.IdentitySecrets;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerKeysTest {

  private static ServerConfig server(String name, ServerSpec spec) {
    return ServerConfig.builder(name, spec)
        .isolation(Isolation.SHARED)
        .maxSessions(4)
        .maxInflightPerSession(8)
        .requestTimeout(Duration.ofSeconds(30))
        .idleTimeout(Duration.ofMinutes(5))
        .toolPrefix(null)
        .build();
  }

  private static ServerSpec http(UpstreamProtocol protocol) {
    return new ServerSpec.StreamableHttp(URI.create("http://127.0.0.1:1/mcp"), Map.of(), protocol);
  }

  private final ServerKeys keys =
      new ServerKeys(
          new SupervisorConfig(
              Map.of(
                  "both", server("both", http(UpstreamProtocol.AUTO)),
                  "modern", server("modern", http(UpstreamProtocol.STATELESS)),
                  "local",
                      server(
                          "local",
                          new ServerSpec.Stdio("fixture", List.of(), Map.of(), null, null))),
              null));

  @Test
  void anAutoHttpServerHasAKeyForEachEraOfCallerSpeakingItsEraFirst() {
    String sessionEra = keys.keyFor("both", false);
    String stateless = keys.keyFor("both", true);
    assertNotEquals(sessionEra, stateless);
    assertEquals(List.of(sessionEra, stateless), keys.keysOf("both"));
    assertEquals(
        UpstreamProtocol.AUTO_SESSION_ERA_FIRST,
        keys.spokenBy("both", sessionEra).spec().protocol());
    assertEquals(UpstreamProtocol.AUTO, keys.spokenBy("both", stateless).spec().protocol());
  }

  @Test
  void everyOtherServerHasOneKeyForEveryCaller() {
    for (String name : List.of("modern", "local")) {
      assertEquals(keys.keyFor(name, false), keys.keyFor(name, true), name);
      assertEquals(List.of(keys.keyFor(name, false)), keys.keysOf(name), name);
      assertEquals(name, keys.spokenBy(name, keys.keyFor(name, true)).name());
    }
    assertEquals(
        UpstreamProtocol.STATELESS,
        keys.spokenBy("modern", keys.keyFor("modern", false)).spec().protocol());
  }

  @Test
  void anUnknownServerHasNone() {
    assertNull(keys.keyFor("nope", true));
    assertEquals(List.of(), keys.keysOf("nope"));
  }

  private static ServerKeys actingKeys(String aliceToken) {
    ServerConfig github =
        server(
            "github",
            new ServerSpec.StreamableHttp(
                URI.create("http://127.0.0.1:1/mcp"),
                Map.of("Authorization", "Bearer ${identity:github_token}"),
                UpstreamProtocol.SESSION));
    GatewayConfig gateway =
        GatewayConfig.builder()
            .host("127.0.0.1")
            .port(0)
            .maxBodyBytes(1024)
            .sessionIdleTimeout(Duration.ofMinutes(1))
            .identitySecrets(
                new IdentitySecrets(
                    Map.of(
                        "alice", Map.of("github_token", aliceToken),
                        "bob", Map.of("github_token", "bob-value"))))
            .build();
    return new ServerKeys(new SupervisorConfig(Map.of("github", github), gateway));
  }

  @Test
  void aServerThatActsAsItsCallerHasKeysOfItsOwnForEachIdentity() {
    ServerKeys acting = actingKeys("alice-value");
    String alice = acting.choose("github", false, "alice", null).keyId();
    String bob = acting.choose("github", false, "bob", null).keyId();
    assertNotEquals(alice, bob);
    assertTrue(alice.startsWith("github@alice-"), alice);
    assertEquals(alice, acting.choose("github", true, "alice", null).keyId(), "one era: one key");
    assertTrue(acting.keysOf("github").containsAll(List.of(alice, bob)));
    ServerSpec.StreamableHttp spoken =
        (ServerSpec.StreamableHttp) acting.spokenBy("github", alice).spec();
    assertEquals("Bearer alice-value", spoken.headers().get("Authorization"));

    ServerKeys.Choice carol = acting.choose("github", false, "carol", null);
    assertNull(carol.keyId());
    assertEquals(JsonRpcErrorCodes.MISSING_CREDENTIAL, carol.refused().code());
    assertTrue(carol.refused().message().contains("github_token"), carol.refused().message());
    assertEquals(
        JsonRpcErrorCodes.MISSING_CREDENTIAL,
        acting.choose("github", false, null, null).refused().code());
  }

  @Test
  void aReloadRetiresOnlyTheKeysOfIdentitiesWhoseValueChanged() {
    ServerKeys before = actingKeys("alice-value");
    String alice = before.choose("github", false, "alice", null).keyId();
    String bob = before.choose("github", false, "bob", null).keyId();

    ServerKeys same = actingKeys("alice-value");
    assertEquals(List.of(), same.carryOver(before));
    assertTrue(same.keysOf("github").containsAll(List.of(alice, bob)), "still known for releases");

    ServerKeys rotated = actingKeys("alice-rotated");
    assertEquals(List.of(alice), rotated.carryOver(before));
    assertNotEquals(alice, rotated.choose("github", false, "alice", null).keyId());
    assertEquals(bob, rotated.choose("github", false, "bob", null).keyId());
  }

  @Test
  void aServerThatPassesTheCallersTokenHasAKeyPerTokenAndRefusesACallWithout() {
    SupervisorConfig config =
        ConfigLoader.parse(
            "mcpServers { internal { url = \"http://127.0.0.1:1/mcp\", passCallerToken = true } }\n"
                + "gateway { authTokens = [\"a-gateway-token-of-at-least-32-characters\"] }",
            "t");
    ServerKeys passing = new ServerKeys(config);
    String first = passing.choose("internal", false, "alice", "token-1").keyId();
    String refreshed = passing.choose("internal", false, "alice", "token-2").keyId();
    String bob = passing.choose("internal", false, "bob", "token-b").keyId();
    assertTrue(first.startsWith("internal@alice-"), first);
    assertNotEquals(first, refreshed, "a new token: a new upstream session");
    assertNotEquals(first, bob);
    assertEquals(first, passing.choose("internal", false, "alice", "token-1").keyId());
    assertTrue(!first.contains("token-1"), first);
    assertEquals(
        "Bearer token-1",
        ((ServerSpec.StreamableHttp) passing.spokenBy("internal", first).spec())
            .headers()
            .get("Authorization"));
    ServerKeys.Choice none = passing.choose("internal", false, "alice", null);
    assertEquals(JsonRpcErrorCodes.MISSING_CREDENTIAL, none.refused().code());
    assertTrue(none.refused().message().contains("internal"), none.refused().message());
  }
}
