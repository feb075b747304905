package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.answer;
import static dev.mcpsupervisor.http.TestGateway.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.IdentityPolicy;
import dev.mcpsupervisor.protocol.config.NamedToken;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * {@code gateway.identities.<name>.servers}: an identity reaches only its servers — 403 on another
 * server's endpoint, and on {@code /mcp} lists and calls cover its servers alone — while an
 * identity without an entry reaches every server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IdentityServersTest {

  private static final String CI = "ci-token-0123456789abcdef0123456789ab";
  private static final String ADMIN = "admin-token-0123456789abcdef01234567";

  private TestGateway gateway;

  @BeforeAll
  void start() {
    GatewayConfig config =
        GatewayConfig.builder()
            .host("127.0.0.1")
            .port(0)
            .maxBodyBytes(1024 * 1024)
            .sessionIdleTimeout(Duration.ofMinutes(30))
            .namedTokens(List.of(new NamedToken("ci", CI), new NamedToken("admin", ADMIN)))
            .identities(Map.of("ci", new IdentityPolicy(List.of("alpha"))))
            .build();
    gateway =
        TestGateway.start(
            config, TestGateway.stdioFixture("alpha"), TestGateway.stdioFixture("beta", "b"));
  }

  @AfterAll
  void stop() {
    gateway.close();
  }

  @Test
  void anotherServersEndpointIsForbidden() {
    HttpResponse<String> forbidden =
        gateway.post(
            "/servers/beta/mcp",
            null,
            TestGateway.initializeBody("2025-11-25", "{}"),
            "Authorization",
            "Bearer " + CI);
    assertEquals(403, forbidden.statusCode(), forbidden.body());
    assertEquals(
        403,
        gateway
            .post(
                "/servers/beta/mcp",
                "any-session",
                request(1, "ping", "{}"),
                "Authorization",
                "Bearer " + CI)
            .statusCode());
    gateway.initializeWith("/servers/alpha/mcp", "Authorization", "Bearer " + CI);
    gateway.initializeWith("/servers/beta/mcp", "Authorization", "Bearer " + ADMIN);
  }

  @Test
  void theAggregateListsAndServesOnlyTheIdentitysServers() {
    String ci = gateway.initializeWith("/mcp", "Authorization", "Bearer " + CI);
    String admin = gateway.initializeWith("/mcp", "Authorization", "Bearer " + ADMIN);
    for (String kind : List.of("tools", "prompts")) {
      List<String> ciNames = names(call(ci, CI, kind + "/list", "{}"), kind);
      List<String> adminNames = names(call(admin, ADMIN, kind + "/list", "{}"), kind);
      assertFalse(ciNames.isEmpty(), kind);
      assertTrue(ciNames.stream().allMatch(name -> name.startsWith("alpha__")), ciNames.toString());
      assertTrue(
          adminNames.stream().anyMatch(name -> name.startsWith("b__")), adminNames.toString());
    }
    JsonNode refused =
        call(ci, CI, "tools/call", "{\"name\":\"b__" + FixtureTools.ECHO + "\",\"arguments\":{}}");
    assertEquals(JsonRpcErrorCodes.UNKNOWN_SERVER, refused.path("error").path("code").asInt());
    JsonNode echoed =
        call(
            ci,
            CI,
            "tools/call",
            "{\"name\":\"alpha__" + FixtureTools.ECHO + "\",\"arguments\":{\"message\":\"hi\"}}");
    assertEquals("hi", TestGateway.text(echoed), echoed.toString());
    call(ci, CI, "resources/list", "{}");
    assertTrue(
        gateway.snapshot().keys().stream()
            .filter(key -> key.server().equals("beta"))
            .noneMatch(key -> key.leases().containsKey(ci)),
        "ci's session never took a lease on beta");
    assertTrue(
        gateway.snapshot().keys().stream()
            .filter(key -> key.server().equals("beta"))
            .anyMatch(key -> key.leases().containsKey(admin)),
        "admin's session did");
  }

  private JsonNode call(String session, String token, String method, String params) {
    HttpResponse<String> response =
        gateway.post(
            "/mcp", session, request(7, method, params), "Authorization", "Bearer " + token);
    assertEquals(200, response.statusCode(), response.body());
    return answer(response);
  }

  private static List<String> names(JsonNode listed, String field) {
    List<String> names = new ArrayList<>();
    listed.path("result").path(field).forEach(item -> names.add(item.path("name").asText()));
    return names;
  }
}
