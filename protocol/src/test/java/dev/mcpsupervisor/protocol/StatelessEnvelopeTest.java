package dev.mcpsupervisor.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.protocol.jsonrpc.ParsedPayload;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The 2026-07-28 request rules: which POST is stateless, the checks in order, the results. */
class StatelessEnvelopeTest {

  private static final String META =
      "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"%s\","
          + "\"io.modelcontextprotocol/clientCapabilities\":{}}";

  private static JsonRpcRequest request(String method, String params) {
    String json =
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"" + method + "\",\"params\":" + params + "}";
    return (JsonRpcRequest) ((ParsedPayload.Single) JsonRpcCodec.parse(json)).message();
  }

  private static JsonRpcRequest call(String version, String tool) {
    return request(
        "tools/call", "{\"name\":\"" + tool + "\"," + String.format(META, version) + "}");
  }

  private static Map<String, String> headers(String version, String method, String name) {
    Map<String, String> headers = new HashMap<>();
    headers.put("MCP-Protocol-Version", version);
    headers.put("Mcp-Method", method);
    headers.put("Mcp-Name", name);
    return headers;
  }

  private static Optional<StatelessEnvelope.Rejection> check(
      JsonRpcRequest request, Map<String, String> headers) {
    return StatelessEnvelope.check(request, headers::get);
  }

  private static void assertRejected(
      Optional<StatelessEnvelope.Rejection> rejection, int status, int code) {
    assertTrue(rejection.isPresent(), "expected a rejection");
    assertEquals(status, rejection.get().httpStatus());
    JsonRpcError error = rejection.get().response().error();
    assertEquals(code, error.code(), error.message());
    assertEquals(7, rejection.get().response().id().asInt(), "the error echoes the request id");
  }

  @Test
  void aPostIsStatelessWhenItsVersionHeaderIsNoSessionEraVersionOrItsMetaNamesAVersion() {
    JsonRpcRequest withMeta = call("2026-07-28", "echo");
    JsonRpcRequest plain = request("tools/list", "{}");
    assertTrue(StatelessEnvelope.isStateless("2026-07-28", withMeta));
    assertTrue(StatelessEnvelope.isStateless(null, withMeta));
    assertTrue(StatelessEnvelope.isStateless("2099-01-01", plain), "refused later: -32602/-32022");
    assertFalse(StatelessEnvelope.isStateless("2025-11-25", plain));
    assertFalse(StatelessEnvelope.isStateless("2025-06-18", withMeta), "a session-era header");
    assertFalse(StatelessEnvelope.isStateless(null, plain), "a session-era initialize or request");
  }

  @Test
  void aCompleteRequestPasses() {
    assertEquals(
        Optional.empty(),
        check(call("2026-07-28", "echo"), headers("2026-07-28", "tools/call", " echo ")));
  }

  @Test
  void checksRunInTheSpecsOrder() {
    // no _meta at all, even with every header wrong: -32602 first
    assertRejected(
        check(request("tools/call", "{\"name\":\"echo\"}"), headers("x", "y", "z")), 400, -32602);
    // _meta without clientCapabilities
    assertRejected(
        check(
            request(
                "tools/list",
                "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}"),
            headers("2026-07-28", "tools/list", null)),
        400,
        -32602);
    // header and _meta disagree, though _meta's version is unsupported too: -32020
    assertRejected(
        check(call("2099-01-01", "echo"), headers("2026-07-28", "tools/call", "echo")),
        400,
        -32020);
    assertRejected(
        check(call("2026-07-28", "echo"), headers(null, "tools/call", "echo")), 400, -32020);
    // both agree on a version not served: -32022 with what is
    Optional<StatelessEnvelope.Rejection> unsupported =
        check(call("2099-01-01", "echo"), headers("2099-01-01", "tools/call", "echo"));
    assertRejected(unsupported, 400, -32022);
    JsonNode data = unsupported.get().response().error().data();
    assertEquals("2026-07-28", data.path("supported").get(0).asText());
    assertEquals("2099-01-01", data.path("requested").asText());
  }

  @Test
  void methodAndNameHeadersMustRepeatTheBodyExactly() {
    JsonRpcRequest echo = call("2026-07-28", "echo");
    assertRejected(check(echo, headers("2026-07-28", null, "echo")), 400, -32020);
    assertRejected(check(echo, headers("2026-07-28", "TOOLS/CALL", "echo")), 400, -32020);
    assertRejected(check(echo, headers("2026-07-28", "tools/call", "add")), 400, -32020);
    assertRejected(check(echo, headers("2026-07-28", "tools/call", null)), 400, -32020);
    JsonRpcRequest read =
        request(
            "resources/read", "{\"uri\":\"test://a\"," + String.format(META, "2026-07-28") + "}");
    assertEquals(
        Optional.empty(), check(read, headers("2026-07-28", "resources/read", "test://a")));
  }

  @Test
  void anEncodedNameIsDecodedBeforeItIsCompared() {
    JsonRpcRequest unicode = call("2026-07-28", "gr\u00fc\u00dfe");
    String encoded =
        "=?base64?"
            + java.util.Base64.getEncoder()
                .encodeToString("gr\u00fc\u00dfe".getBytes(java.nio.charset.StandardCharsets.UTF_8))
            + "?=";
    assertEquals(Optional.empty(), check(unicode, headers("2026-07-28", "tools/call", encoded)));
    assertRejected(
        check(unicode, headers("2026-07-28", "tools/call", "=?base64?Z3L=?=")), 400, -32020);
    JsonRpcRequest lookalike = call("2026-07-28", "=?base64?ZWNobw==?=");
    assertRejected(
        check(lookalike, headers("2026-07-28", "tools/call", "=?base64?ZWNobw==?=")), 400, -32020);
  }

  @Test
  void removedAndUnknownMethodsAre404MethodNotFound() {
    for (String method :
        new String[] {"initialize", "ping", "logging/setLevel", "resources/subscribe", "x/y"}) {
      JsonRpcRequest removed = request(method, "{" + String.format(META, "2026-07-28") + "}");
      assertRejected(check(removed, headers("2026-07-28", method, null)), 404, -32601);
    }
  }

  @Test
  void resultsSayTheirTypeAndCacheableOnesCarryHintsUnlessTheServerSetThem() {
    JsonRpcRequest list = request("tools/list", "{}");
    var tools = JsonRpcCodec.emptyObject();
    tools.putArray("tools");
    JsonNode listed =
        StatelessEnvelope.forStatelessClient(
                list, JsonRpcResponse.success(list.id(), tools), "public")
            .result();
    assertEquals("complete", listed.path("resultType").asText());
    assertEquals(0, listed.path("ttlMs").asInt(-1));
    assertEquals("public", listed.path("cacheScope").asText());

    JsonRpcRequest echo = call("2026-07-28", "echo");
    var given = JsonRpcCodec.emptyObject();
    given.put("resultType", "input_required");
    JsonNode called =
        StatelessEnvelope.forStatelessClient(
                echo, JsonRpcResponse.success(echo.id(), given), "private")
            .result();
    assertEquals("input_required", called.path("resultType").asText(), "kept as the server said");
    assertFalse(called.has("ttlMs"), "a tool result is not cacheable");
  }

  @Test
  void aCachedListKeepsItsRemainingLifetimeAndANegativeOneBecomesZero() {
    JsonRpcRequest list = request("prompts/list", "{}");
    var cached = JsonRpcCodec.emptyObject();
    cached.putArray("prompts");
    cached.put("ttlMs", 4_200);
    assertEquals(
        4_200,
        StatelessEnvelope.forStatelessClient(
                list, JsonRpcResponse.success(list.id(), cached), "public")
            .result()
            .path("ttlMs")
            .asLong());
    cached.put("ttlMs", -5);
    assertEquals(
        0,
        StatelessEnvelope.forStatelessClient(
                list, JsonRpcResponse.success(list.id(), cached), "public")
            .result()
            .path("ttlMs")
            .asLong(-1));
  }

  @Test
  void aSessionEraClientGetsNoCacheHints() {
    JsonRpcRequest list = request("tools/list", "{}");
    var cached = JsonRpcCodec.emptyObject();
    cached.putArray("tools");
    cached.put("ttlMs", 4_200);
    cached.put("cacheScope", "public");
    JsonNode answered =
        StatelessEnvelope.forSessionClient(list, JsonRpcResponse.success(list.id(), cached))
            .result();
    assertFalse(answered.has("ttlMs") || answered.has("cacheScope"), answered.toString());
    assertTrue(answered.has("tools"));
    assertTrue(cached.has("ttlMs"), "a copy: the cached result is untouched");

    JsonRpcRequest echo = call("2025-11-25", "echo");
    var tool = JsonRpcCodec.emptyObject();
    tool.put("ttlMs", 1);
    assertTrue(
        StatelessEnvelope.forSessionClient(echo, JsonRpcResponse.success(echo.id(), tool))
            .result()
            .has("ttlMs"),
        "only cacheable results lose them");
  }

  @Test
  void aResourceNotFoundBecomesInvalidParamsWithItsUri() {
    JsonRpcRequest read =
        request(
            "resources/read",
            "{\"uri\":\"test://gone\"," + String.format(META, "2026-07-28") + "}");
    JsonRpcResponse answer =
        StatelessEnvelope.forStatelessClient(
            read, JsonRpcResponse.failure(read.id(), -32002, "Resource not found"), "public");
    assertEquals(-32602, answer.error().code());
    assertEquals("test://gone", answer.error().data().path("uri").asText());
  }

  @Test
  void aLogLevelGoesIntoACopyOfTheParamsMetaBesideWhatIsThere() {
    JsonNode params =
        request("tools/call", "{\"name\":\"t\",\"_meta\":{\"progressToken\":\"p\"}}").params();
    JsonNode withLevel = StatelessEnvelope.withLogLevel(params, "warning");

    assertEquals(
        "warning", withLevel.path("_meta").path(StatelessEnvelope.META_LOG_LEVEL).asText());
    assertEquals("p", withLevel.path("_meta").path("progressToken").asText());
    assertFalse(params.path("_meta").has(StatelessEnvelope.META_LOG_LEVEL), "the caller's tree");
    assertEquals(
        "info",
        StatelessEnvelope.withLogLevel(null, "info")
            .path("_meta")
            .path(StatelessEnvelope.META_LOG_LEVEL)
            .asText());
    assertTrue(params == StatelessEnvelope.withLogLevel(params, null), "no level, no copy");
  }
}
