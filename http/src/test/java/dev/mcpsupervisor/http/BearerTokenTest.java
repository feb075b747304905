package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** With tokens configured: MCP, metrics and admin need one; the probes stay open. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BearerTokenTest {

  private static final String TOKEN = "s3cret-token-0123456789abcdef0123";
  private static final String OTHER_TOKEN = "another-valid-one-0123456789abcdef";

  private TestGateway gateway;

  @BeforeAll
  void start() {
    gateway =
        TestGateway.start(TestGateway.gateway(List.of(TOKEN, OTHER_TOKEN), List.of(), 1024 * 1024));
  }

  @AfterAll
  void stop() {
    gateway.close();
  }

  @Test
  void mcpWithoutATokenGets401WithBearerChallenge() {
    HttpResponse<String> response =
        gateway.post("/mcp", null, TestGateway.initializeBody("2025-11-25", "{}"));
    assertUnauthorized(response);
  }

  @Test
  void aWrongTokenGets401() {
    for (String header :
        List.of(
            "Bearer wrong", "Bearer " + TOKEN + "x", "Bearer s3cret", "Basic " + TOKEN, "Bearer")) {
      assertUnauthorized(
          gateway.post(
              "/mcp",
              null,
              TestGateway.initializeBody("2025-11-25", "{}"),
              "Authorization",
              header));
    }
  }

  @Test
  void everyConfiguredTokenIsAccepted() {
    for (String token : List.of(TOKEN, OTHER_TOKEN)) {
      HttpResponse<String> response =
          gateway.post(
              "/mcp",
              null,
              TestGateway.initializeBody("2025-11-25", "{}"),
              "Authorization",
              "Bearer " + token);
      assertEquals(200, response.statusCode(), response.body());
      assertTrue(response.headers().firstValue("Mcp-Session-Id").isPresent());
    }
    HttpResponse<String> lowerCaseScheme =
        gateway.post(
            "/mcp",
            null,
            TestGateway.initializeBody("2025-11-25", "{}"),
            "Authorization",
            "bearer " + TOKEN);
    assertEquals(200, lowerCaseScheme.statusCode());
  }

  @Test
  void probesStayOpen() {
    assertEquals(200, gateway.get("/healthz").statusCode());
    HttpResponse<String> ready = gateway.get("/readyz");
    assertEquals(200, ready.statusCode());
    assertEquals("ready", json(ready.body()).path("status").asText());
  }

  @Test
  void metricsAndAdminNeedTheToken() {
    assertUnauthorized(gateway.get("/metrics"));
    assertUnauthorized(gateway.get("/admin/sessions"));
    assertEquals(200, gateway.get("/metrics", "Authorization", "Bearer " + TOKEN).statusCode());
    assertEquals(
        200, gateway.get("/admin/sessions", "Authorization", "Bearer " + TOKEN).statusCode());
  }

  private static void assertUnauthorized(HttpResponse<String> response) {
    assertEquals(401, response.statusCode(), response.body());
    assertTrue(response.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"));
    assertEquals(
        JsonRpcErrorCodes.INVALID_REQUEST,
        json(response.body()).path("error").path("code").asInt());
    assertTrue(!response.body().contains(TOKEN));
  }
}
