package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.json;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each envelope rule at the gateway's edge, in both eras and on both endpoints: a malformed request
 * is answered at once, 400 with its id and the error naming the field, and never reaches the
 * upstream (a counting server sees nothing of it); in a batch only the malformed element is
 * refused. A malformed answer to a server request is refused to the client and reaches the upstream
 * as an error, so the call that asked answers instead of hanging (the fixture over stdio drops what
 * its schema rejects, as server-everything does).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EnvelopeValidationTest {

  private static final String COUNTING = "/servers/counting/mcp";
  private static final String FIXTURE = "/servers/fixture/mcp";

  private CountingUpstream upstream;
  private TestGateway gateway;
  private final Map<String, String> sessions = new HashMap<>();

  @BeforeAll
  void start() {
    upstream = new CountingUpstream(List.of("echo"));
    List<String> dropping = FixtureProcess.droppingStdioCommand();
    gateway =
        TestGateway.start(
            TestGateway.streamableHttp("counting", upstream.url()),
            TestGateway.server(
                "fixture",
                new ServerSpec.Stdio(
                    dropping.get(0), dropping.subList(1, dropping.size()), Map.of(), null)));
    sessions.put(COUNTING, gateway.initialize(COUNTING));
    sessions.put("/mcp", gateway.initialize("/mcp"));
  }

  @AfterAll
  void stop() {
    gateway.close();
    upstream.close();
  }

  // ------------------------------------------------------------------------------- session era

  static Stream<Arguments> sessionEraViolations() {
    List<Arguments> cases = new ArrayList<>();
    for (String path : List.of(COUNTING, "/mcp")) {
      String echo = path.equals("/mcp") ? "counting__echo" : "echo";
      String call = "{\"name\":\"" + echo + "\",\"arguments\":{}";
      cases.add(violation(path, "tools/call", "1", "[]", INVALID_PARAMS, "params"));
      cases.add(violation(path, "tools/call", "2", "[[[[[]]]]]", INVALID_PARAMS, "params"));
      cases.add(
          violation(
              path, "tools/call", "3", call + ",\"_meta\":1e308}", INVALID_PARAMS, "params._meta"));
      cases.add(
          violation(
              path, "tools/call", "4", call + ",\"_meta\":null}", INVALID_PARAMS, "params._meta"));
      cases.add(
          violation(
              path,
              "tools/call",
              "5",
              call + ",\"_meta\":{\"bad key!\":1}}",
              INVALID_PARAMS,
              "params._meta[\"bad key!\"]"));
      cases.add(
          violation(
              path,
              "tools/call",
              "6",
              call + ",\"_meta\":{\"progressToken\":{}}}",
              INVALID_PARAMS,
              "params._meta.progressToken"));
      cases.add(violation(path, "tools/call", "1.5", call + "}", INVALID_REQUEST, "id"));
      cases.add(
          violation(path, "tools/call", "9007199254740993", call + "}", INVALID_REQUEST, "id"));
      cases.add(
          violation(path, "tools/call", "\"a\"", "{\"name\":5}", INVALID_PARAMS, "params.name"));
      cases.add(
          violation(
              path,
              "tools/call",
              "\"b\"",
              "{\"name\":\"" + echo + "\",\"arguments\":[]}",
              INVALID_PARAMS,
              "params.arguments"));
      cases.add(violation(path, "resources/read", "7", "{}", INVALID_PARAMS, "params.uri"));
      cases.add(
          violation(path, "resources/read", "8", "{\"uri\":5}", INVALID_PARAMS, "params.uri"));
      cases.add(
          violation(
              path,
              "prompts/get",
              "9",
              "{\"name\":\"p\",\"arguments\":{\"a\":1}}",
              INVALID_PARAMS,
              "params.arguments[\"a\"]"));
      cases.add(
          violation(
              path,
              "completion/complete",
              "10",
              "{\"ref\":\"x\",\"argument\":{\"name\":\"a\",\"value\":\"b\"}}",
              INVALID_PARAMS,
              "params.ref"));
      cases.add(
          violation(path, "tools/list", "11", "{\"cursor\":5}", INVALID_PARAMS, "params.cursor"));
      cases.add(
          violation(
              path, "logging/setLevel", "12", "{\"level\":7}", INVALID_PARAMS, "params.level"));
    }
    return cases.stream();
  }

  private static Arguments violation(
      String path, String method, String id, String params, int code, String field) {
    return Arguments.of(path, method, id, params, code, field);
  }

  @ParameterizedTest(name = "{0} {1} id {2} params {3}")
  @MethodSource("sessionEraViolations")
  void aMalformedSessionEraRequestIsAnsweredAtOnceAndNeverForwarded(
      String path, String method, String id, String params, int code, String field) {
    int before = upstream.count(method);
    HttpResponse<String> response =
        gateway.post(
            path,
            sessions.get(path),
            "{\"jsonrpc\":\"2.0\",\"id\":"
                + id
                + ",\"method\":\""
                + method
                + "\",\"params\":"
                + params
                + "}",
            "MCP-Protocol-Version",
            ProtocolVersions.V2025_11_25);
    assertRefused(response, id, code, field);
    assertEquals(before, upstream.count(method), "the upstream got the malformed " + method);
  }

  @Test
  void aWellFormedRequestStillReachesTheUpstream() {
    int before = upstream.calls("echo");
    HttpResponse<String> response =
        gateway.post(
            COUNTING,
            sessions.get(COUNTING),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
                + "\"arguments\":{},\"_meta\":{\"progressToken\":7,\"com.example/trace\":\"t\"}}}",
            "MCP-Protocol-Version",
            ProtocolVersions.V2025_11_25);
    assertEquals(200, response.statusCode(), response.body());
    assertEquals("echo", TestGateway.text(TestGateway.answer(response)));
    assertEquals(before + 1, upstream.calls("echo"));
  }

  @Test
  void inABatchOnlyTheMalformedElementIsRefused() {
    String session = gateway.initialize(COUNTING, ProtocolVersions.V2025_03_26, "{}");
    int before = upstream.calls("echo");
    HttpResponse<String> response =
        gateway.post(
            COUNTING,
            session,
            "["
                + TestGateway.callTool(1, "echo", "{}")
                + ",{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":[]}"
                + ",{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":[]}}]");
    assertEquals(200, response.statusCode(), response.body());
    JsonNode answers = json(response.body());
    assertEquals(2, answers.size(), response.body());
    for (JsonNode answer : answers) {
      if (answer.path("id").asInt() == 1) {
        assertEquals("echo", TestGateway.text(answer), answer.toString());
      } else {
        assertEquals(2, answer.path("id").asInt(), answer.toString());
        assertEquals(INVALID_PARAMS, answer.path("error").path("code").asInt(), answer.toString());
        assertEquals("params", answer.path("error").path("data").path("field").asText());
      }
    }
    assertEquals(before + 1, upstream.calls("echo"));
  }

  @Test
  void aMalformedNotificationIsRefusedWithoutAnId() {
    int before = upstream.count(McpMethods.NOTIFICATION_CANCELLED);
    HttpResponse<String> response =
        gateway.post(
            COUNTING,
            sessions.get(COUNTING),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":{}}}");
    assertRefused(response, "null", INVALID_PARAMS, "params.requestId");
    assertEquals(before, upstream.count(McpMethods.NOTIFICATION_CANCELLED));
  }

  // -------------------------------------------------------------------------------- 2026-07-28

  static Stream<Arguments> statelessViolations() {
    List<Arguments> cases = new ArrayList<>();
    for (String path : List.of(COUNTING, "/mcp")) {
      String echo = path.equals("/mcp") ? "counting__echo" : "echo";
      cases.add(Arguments.of(path, "5", "{\"name\":5,%s}", "5", "params.name"));
      cases.add(
          Arguments.of(
              path,
              "6",
              "{\"name\":\"" + echo + "\",\"arguments\":[],%s}",
              echo,
              "params.arguments"));
      cases.add(
          Arguments.of(
              path,
              "7",
              "{\"name\":\"" + echo + "\",\"inputResponses\":[],%s}",
              echo,
              "params.inputResponses"));
      cases.add(
          Arguments.of(
              path,
              "8",
              "{\"name\":\"" + echo + "\",\"inputResponses\":{\"elicitation-1\":\"yes\"},%s}",
              echo,
              "params.inputResponses[\"elicitation-1\"]"));
      cases.add(
          Arguments.of(
              path,
              "9",
              "{\"name\":\"" + echo + "\",\"requestState\":42,%s}",
              echo,
              "params.requestState"));
      cases.add(
          Arguments.of(
              path,
              "10",
              "{\"name\":\""
                  + echo
                  + "\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                  + "\"io.modelcontextprotocol/clientCapabilities\":{},"
                  + "\"io.modelcontextprotocol/clientInfo\":5}}",
              echo,
              "params._meta[\"io.modelcontextprotocol/clientInfo\"]"));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} id {1} params {2}")
  @MethodSource("statelessViolations")
  void aMalformedStatelessRequestIsAnsweredAtOnceAndNeverForwarded(
      String path, String id, String params, String name, String field) {
    int before = upstream.count(McpMethods.TOOLS_CALL);
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":"
            + id
            + ",\"method\":\"tools/call\",\"params\":"
            + (params.contains("%s")
                ? String.format(params, StatelessClient.meta("{}", ""))
                : params)
            + "}";
    HttpResponse<String> response =
        gateway.post(path, null, body, StatelessClient.headers("tools/call", name));
    assertRefused(response, id, INVALID_PARAMS, field);
    assertEquals(before, upstream.count(McpMethods.TOOLS_CALL), "the upstream got the call");
  }

  // --------------------------------------------------------------------------- client answers

  @Test
  void aMalformedAnswerToAServerRequestIsRefusedAndTheUpstreamGetsAnError() throws Exception {
    String session =
        gateway.initialize(FIXTURE, ProtocolVersions.V2025_11_25, "{\"elicitation\":{}}");
    try (SseStream call =
        SseStream.open(
            gateway,
            gateway
                .postRequest(
                    FIXTURE, session, TestGateway.callTool(1, "elicit", "{\"message\":\"ok?\"}"))
                .build())) {
      JsonNode asked = call.next();
      assertEquals("elicitation/create", asked.path("method").asText(), asked.toString());
      HttpResponse<String> refused =
          gateway.post(
              FIXTURE,
              session,
              "{\"jsonrpc\":\"2.0\",\"id\":" + asked.get("id") + ",\"result\":5}");
      assertRefused(refused, "null", INVALID_REQUEST, "result");
      // the upstream got an error for its elicitation, so the call answers instead of hanging
      JsonNode answer = call.next();
      assertEquals(1, answer.path("id").asInt(), answer.toString());
      assertTrue(
          answer.has("error") || answer.path("result").path("isError").asBoolean(),
          answer.toString());
    }
  }

  // ---------------------------------------------------------------------------------- helpers

  private static void assertRefused(
      HttpResponse<String> response, String id, int code, String field) {
    assertEquals(400, response.statusCode(), response.body());
    JsonNode body = json(response.body());
    assertEquals(json(id), body.get("id"), response.body());
    assertEquals(code, body.path("error").path("code").asInt(), response.body());
    assertEquals(field, body.path("error").path("data").path("field").asText(), response.body());
    assertTrue(body.path("error").path("message").asText().contains(field), response.body());
    assertFalse(response.body().contains("Exception"), response.body());
  }
}
