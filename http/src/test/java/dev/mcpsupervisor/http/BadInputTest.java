package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.callTool;
import static dev.mcpsupervisor.http.TestGateway.json;
import static dev.mcpsupervisor.http.TestGateway.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every bad input gets its exact status and JSON-RPC error, never a 500 or a stack trace. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BadInputTest {

  private static final String FIXTURE = "/servers/fixture/mcp";
  private static final int MAX_BODY = 64 * 1024;

  private TestGateway gateway;
  private String session;

  @BeforeAll
  void start() {
    gateway =
        TestGateway.start(
            TestGateway.gateway(List.of(), List.of("https://app.example.com"), MAX_BODY),
            TestGateway.stdioFixture("fixture"));
    session = gateway.initialize(FIXTURE);
  }

  @AfterAll
  void stop() {
    gateway.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"{", "{\"jsonrpc\":\"2.0\",", "not json", "{}{}", "[1,2"})
  void malformedJsonGets400WithParseError(String body) {
    assertError(gateway.post(FIXTURE, session, body), 400, JsonRpcErrorCodes.PARSE_ERROR);
    assertError(gateway.post("/mcp", null, body), 400, JsonRpcErrorCodes.PARSE_ERROR);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
        "{\"id\":1,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}",
        "[]",
        "42",
        "\"text\""
      })
  void anInvalidRequestGets400WithInvalidRequest(String body) {
    assertError(gateway.post(FIXTURE, session, body), 400, JsonRpcErrorCodes.INVALID_REQUEST);
  }

  @Test
  void anUnknownMethodOnTheAggregatedEndpointGetsMethodNotFound() {
    String aggregated = gateway.initialize("/mcp");
    HttpResponse<String> response =
        gateway.post("/mcp", aggregated, request(2, "no/such/method", "{}"));
    assertEquals(200, response.statusCode());
    assertEquals(
        JsonRpcErrorCodes.METHOD_NOT_FOUND,
        TestGateway.answer(response).path("error").path("code").asInt());
  }

  @Test
  void anUnknownMethodOnOneServerGetsThatServersMethodNotFound() {
    HttpResponse<String> response =
        gateway.post(FIXTURE, session, request(2, "no/such/method", "{}"));
    assertEquals(
        JsonRpcErrorCodes.METHOD_NOT_FOUND,
        TestGateway.answer(response).path("error").path("code").asInt());
  }

  @Test
  void aToolOfAnUnknownServerGetsAnErrorNamingIt() {
    String aggregated = gateway.initialize("/mcp");
    JsonNode unknown =
        TestGateway.answer(gateway.post("/mcp", aggregated, callTool(2, "zeta__echo", "{}")));
    JsonNode unprefixed =
        TestGateway.answer(gateway.post("/mcp", aggregated, callTool(3, "echo", "{}")));
    assertEquals(JsonRpcErrorCodes.UNKNOWN_SERVER, unknown.path("error").path("code").asInt());
    assertTrue(
        unknown.path("error").path("message").asText().contains("\"zeta\""), unknown.toString());
    assertEquals(JsonRpcErrorCodes.UNKNOWN_SERVER, unprefixed.path("error").path("code").asInt());
    assertTrue(
        unprefixed.path("error").path("message").asText().contains("\"echo\""),
        unprefixed.toString());
  }

  @Test
  void aWrongContentTypeGets415() {
    HttpResponse<String> text =
        gateway.post(FIXTURE, session, request(1, "ping", "{}"), "Content-Type", "text/plain");
    HttpResponse<String> none =
        gateway.send(
            gateway
                .request(FIXTURE)
                .header("Accept", "application/json")
                .header("Mcp-Session-Id", session)
                .POST(HttpRequest.BodyPublishers.ofString(request(1, "ping", "{}")))
                .build());
    assertError(text, 415, JsonRpcErrorCodes.INVALID_REQUEST);
    assertError(none, 415, JsonRpcErrorCodes.INVALID_REQUEST);
  }

  @Test
  void aPostAcceptingNeitherJsonNorSseGets406() {
    assertError(
        gateway.post(FIXTURE, session, request(1, "ping", "{}"), "Accept", "text/html"),
        406,
        JsonRpcErrorCodes.INVALID_REQUEST);
    assertError(
        gateway.post(
            FIXTURE,
            session,
            request(1, "ping", "{}"),
            "Accept",
            "application/json;q=0, text/html"),
        406,
        JsonRpcErrorCodes.INVALID_REQUEST);
  }

  @Test
  void aGetNotAcceptingSseGets406() {
    assertError(
        gateway.get(FIXTURE, "Accept", "application/json", "Mcp-Session-Id", session),
        406,
        JsonRpcErrorCodes.INVALID_REQUEST);
  }

  @Test
  void aClientAcceptingOnlyJsonGetsJson() {
    HttpResponse<String> response =
        gateway.post(
            FIXTURE,
            session,
            request(
                5,
                "tools/call",
                "{\"name\":\"progress\",\"arguments\":{\"steps\":3},\"_meta\":{\"progressToken\":\"t\"}}"),
            "Accept",
            "application/json");
    assertEquals(200, response.statusCode());
    assertEquals("application/json", response.headers().firstValue("Content-Type").orElseThrow());
    assertEquals("done 3", TestGateway.text(json(response.body())));
  }

  @Test
  void aBodyOverTheLimitGets413WithOrWithoutContentLength() {
    String big = callTool(1, "echo", "{\"message\":\"" + "x".repeat(MAX_BODY) + "\"}");
    assertError(gateway.post(FIXTURE, session, big), 413, JsonRpcErrorCodes.INVALID_REQUEST);
    HttpResponse<String> chunked =
        gateway.send(
            gateway
                .postRequest(FIXTURE, session, "")
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(
                        () -> new ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8))))
                .build());
    assertError(chunked, 413, JsonRpcErrorCodes.INVALID_REQUEST);
    String justUnder = callTool(1, "echo", "{\"message\":\"" + "y".repeat(MAX_BODY - 200) + "\"}");
    assertEquals(200, gateway.post(FIXTURE, session, justUnder).statusCode());
  }

  @Test
  void aForeignOriginGets403() {
    for (String origin :
        List.of(
            "https://evil.example.com",
            "null",
            "http://localhost.evil.com",
            "https://app.example.com:8443")) {
      HttpResponse<String> response =
          gateway.post(FIXTURE, session, request(1, "ping", "{}"), "Origin", origin);
      assertError(response, 403, JsonRpcErrorCodes.INVALID_REQUEST);
    }
  }

  @Test
  void loopbackAndAllowedOriginsAreAccepted() {
    for (String origin :
        List.of(
            "http://localhost:3000",
            "http://127.0.0.1",
            "http://[::1]:9",
            "https://APP.example.com:443")) {
      HttpResponse<String> response =
          gateway.post(FIXTURE, session, request(1, "ping", "{}"), "Origin", origin);
      assertEquals(200, response.statusCode(), origin + ": " + response.body());
    }
  }

  @Test
  void aRebindingHostGets403AndLoopbackHostsAreAccepted() throws IOException {
    int port = gateway.server.address().getPort();
    String initialize = TestGateway.initializeBody("2025-11-25", "{}");
    RawHttp.Response evil = raw("POST", "/mcp", "evil.example.com", initialize);
    assertEquals(403, evil.status(), evil.body());
    assertEquals(
        JsonRpcErrorCodes.INVALID_REQUEST, json(evil.body()).path("error").path("code").asInt());
    assertEquals(403, raw("GET", "/healthz", "evil.example.com:" + port, null).status());
    for (String host :
        List.of("localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "localhost")) {
      assertEquals(200, raw("POST", FIXTURE, host, initialize).status(), host);
    }
  }

  @Test
  void anUnknownServerPathGets404() {
    assertError(
        gateway.post("/servers/nope/mcp", null, request(1, "ping", "{}")),
        404,
        JsonRpcErrorCodes.INVALID_REQUEST);
    assertError(gateway.get("/nowhere"), 404, JsonRpcErrorCodes.INVALID_REQUEST);
  }

  @Test
  void aWrongMethodGets405WithAllow() {
    HttpResponse<String> response =
        gateway.send(
            gateway.request("/mcp").PUT(HttpRequest.BodyPublishers.ofString("{}")).build());
    assertError(response, 405, JsonRpcErrorCodes.INVALID_REQUEST);
    String allow = response.headers().firstValue("Allow").orElseThrow();
    assertTrue(allow.contains("POST") && allow.contains("GET") && allow.contains("DELETE"), allow);
  }

  @Test
  void rejectionsAreCounted() {
    gateway.post(FIXTURE, session, "{");
    String metrics = gateway.metrics.scrape(null);
    assertTrue(
        metrics.contains("mcp_supervisor_downstream_rejections_total{reason=\"parse_error\"}"),
        metrics);
  }

  private static void assertError(HttpResponse<String> response, int status, int code) {
    assertEquals(status, response.statusCode(), response.body());
    assertTrue(
        response.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
    JsonNode body = json(response.body());
    assertEquals("2.0", body.path("jsonrpc").asText());
    assertEquals(code, body.path("error").path("code").asInt(), response.body());
    assertFalse(response.body().contains("Exception"), response.body());
  }

  private RawHttp.Response raw(String method, String path, String host, String body)
      throws IOException {
    return RawHttp.send(gateway.server.address().getPort(), method, path, host, body);
  }
}
