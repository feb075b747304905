package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.answer;
import static dev.mcpsupervisor.http.TestGateway.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.McpMethods;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * SEP-2243 through the gateway: a 2026-07-28 tools/call of a tool whose schema marks parameters
 * with {@code x-mcp-header} is checked against its Mcp-Param-* headers before it goes upstream, on
 * both endpoints, with the schema from the supervisor's list cache. The fixture upstream speaks the
 * session era over stdio, so every check here is the gateway's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ParamHeadersGatewayTest {

  private static final String FIXTURE = "/servers/fixture/mcp";
  private static final String TOOL = FixtureTools.HEADER_ECHO;

  private CountingUpstream counting;
  private TestGateway gateway;
  private StatelessClient client;

  @BeforeAll
  void start() {
    counting = new CountingUpstream(List.of("first"));
    gateway =
        TestGateway.start(
            TestGateway.stdioFixture("fixture"), TestGateway.streamableHttp("up", counting.url()));
    client = new StatelessClient(gateway, "{}");
  }

  @AfterAll
  void stop() {
    gateway.close();
    counting.close();
  }

  /** A stateless call of {@code tool} with {@code arguments} and these extra headers. */
  private HttpResponse<String> call(String path, String tool, String arguments, String... extra) {
    List<String> headers = new ArrayList<>(List.of(StatelessClient.headers("tools/call", tool)));
    headers.addAll(List.of(extra));
    return gateway.post(
        path, null, client.toolCall(9, tool, arguments, "", ""), headers.toArray(String[]::new));
  }

  private static String toolOn(String path) {
    return FIXTURE.equals(path) ? TOOL : "fixture__" + TOOL;
  }

  @Test
  void matchingHeadersPassOnBothEndpointsPlainEncodedOrAsLiterals() {
    for (String path : List.of(FIXTURE, "/mcp")) {
      String tool = toolOn(path);
      HttpResponse<String> plain =
          call(
              path,
              tool,
              "{\"region\":\"us-west1\",\"count\":3}",
              "Mcp-Param-Region",
              "us-west1",
              "mcp-param-count",
              "3.0");
      assertEquals(200, plain.statusCode(), plain.body());
      assertEquals("region=us-west1, count=3", text(answer(plain)), plain.body());

      HttpResponse<String> encoded =
          call(path, tool, "{\"region\":\"Hello\"}", "Mcp-Param-Region", "=?base64?SGVsbG8=?=");
      assertEquals("region=Hello", text(answer(encoded)), encoded.body());

      HttpResponse<String> literal =
          call(
              path,
              tool,
              "{\"region\":\"=?base64?SGVsbG8=\"}",
              "Mcp-Param-Region",
              "=?base64?SGVsbG8=");
      assertEquals("region==?base64?SGVsbG8=", text(answer(literal)), literal.body());
    }
  }

  @Test
  void missingWrongOrMalformedHeadersAre400HeaderMismatchBeforeTheCallGoesUpstream() {
    for (String path : List.of(FIXTURE, "/mcp")) {
      String tool = toolOn(path);
      List<HttpResponse<String>> refused =
          List.of(
              call(path, tool, "{\"region\":\"test-value\"}"),
              call(path, tool, "{\"region\":\"Hello\"}", "Mcp-Param-Region", "=?base64?SGVsbG8?="),
              call(
                  path,
                  tool,
                  "{\"region\":\"Hello\"}",
                  "Mcp-Param-Region",
                  "=?base64?SGVs!!!bG8=?="),
              call(path, tool, "{\"region\":\"Hello\"}", "Mcp-Param-Region", "Goodbye"),
              call(
                  path,
                  tool,
                  "{\"region\":\"a\"}",
                  "Mcp-Param-Region",
                  "a",
                  "Mcp-Param-Count",
                  "1"));
      for (HttpResponse<String> response : refused) {
        assertEquals(400, response.statusCode(), response.body());
        JsonNode error = answer(response).path("error");
        assertEquals(-32020, error.path("code").asInt(), response.body());
        assertEquals(9, answer(response).path("id").asInt(), "the refusal echoes the id");
        assertTrue(error.path("message").asText().contains("Mcp-Param-"), response.body());
      }
    }
  }

  @Test
  void aSessionEraClientKnowsNoMirroredHeadersAndIsNotAskedForThem() {
    String session = gateway.initialize(FIXTURE);
    HttpResponse<String> response =
        gateway.post(FIXTURE, session, TestGateway.callTool(2, TOOL, "{\"region\":\"eu\"}"));
    assertEquals(200, response.statusCode(), response.body());
    assertEquals("region=eu", text(answer(response)), response.body());
  }

  @Test
  void theSchemaComesFromTheListCacheNotFromAToolsListPerCall() {
    // the first call may have to list; afterwards the supervisor's cache answers
    assertEquals(200, call("/servers/up/mcp", "first", "{}").statusCode());
    int listed = counting.count(McpMethods.TOOLS_LIST);
    for (int i = 0; i < 40; i++) {
      HttpResponse<String> response =
          call(i % 2 == 0 ? "/servers/up/mcp" : "/mcp", i % 2 == 0 ? "first" : "up__first", "{}");
      assertEquals(200, response.statusCode(), response.body());
    }
    assertEquals(listed, counting.count(McpMethods.TOOLS_LIST), "no tools/list per call");
    assertTrue(counting.count(McpMethods.TOOLS_CALL) >= 41, "every call went upstream");
  }
}
