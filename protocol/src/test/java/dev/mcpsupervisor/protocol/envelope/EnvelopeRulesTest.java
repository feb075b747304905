package dev.mcpsupervisor.protocol.envelope;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INTERNAL_ERROR;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.protocol.jsonrpc.ParsedPayload;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Each rule of a client message's envelope and of the fields its method needs, one by one. */
class EnvelopeRulesTest {

  private static final EnvelopeRules.Rules SESSION = EnvelopeRules.Rules.of("2025-11-25");
  private static final EnvelopeRules.Rules OLD_SESSION = EnvelopeRules.Rules.of("2025-03-26");
  private static final EnvelopeRules.Rules UNKNOWN_VERSION = EnvelopeRules.Rules.of(null);
  private static final EnvelopeRules.Rules STATELESS = EnvelopeRules.Rules.of("2026-07-28");

  private static final String META_2026 =
      "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
          + "\"io.modelcontextprotocol/clientCapabilities\":{}}";

  // ----------------------------------------------------------------------------- well-formed

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/list\",\"params\":{\"cursor\":\"c\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":9007199254740991,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"m\":[1]},\"_meta\":{\"progressToken\":\"t\",\"com.example/trace-id\":1,\"io.modelcontextprotocol/related-task\":{}}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2.0,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\",\"params\":{\"name\":\"p\",\"arguments\":{\"a\":\"b\"}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"x://y\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"x://y\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"p\"},\"argument\":{\"name\":\"a\",\"value\":\"\"},\"context\":{\"arguments\":{\"b\":\"c\"}}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"x://{id}\"},\"argument\":{\"name\":\"id\",\"value\":\"4\"}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"debug\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"vendor/unknown\",\"params\":{\"anything\":[1]}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"r\",\"reason\":\"x\"}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":3,\"progress\":0.5,\"total\":1}}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"gw-1\",\"result\":{\"action\":\"accept\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"gw-1\",\"error\":{\"code\":-1,\"message\":\"no\"}}"
      })
  void wellFormedMessagesPass(String body) {
    assertEquals(Optional.empty(), EnvelopeRules.check(message(body), SESSION), body);
  }

  @Test
  void aWellFormedStatelessRetryPasses() {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\","
            + "\"inputResponses\":{\"e\":{\"action\":\"accept\",\"content\":{\"a\":1}},"
            + "\"s\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"x\"},\"model\":\"m\"},"
            + "\"r\":{\"roots\":[{\"uri\":\"file:///a\"}]}},\"requestState\":\"abc\","
            + META_2026
            + "}}";
    assertEquals(Optional.empty(), EnvelopeRules.check(message(body), STATELESS));
  }

  // ----------------------------------------------------------------------------------- the id

  @ParameterizedTest
  @ValueSource(strings = {"1.5", "9007199254740992", "-9007199254740992", "1e308", "-1e30"})
  void anIdThatIsFractionalOrBeyondTwoToTheFiftyThreeIsAnInvalidRequest(String id) {
    Violation violation =
        violation("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"ping\"}", SESSION);
    assertEquals(INVALID_REQUEST, violation.code());
    assertEquals("id", violation.field());
  }

  @Test
  void aHugeExponentIdIsRefusedWithoutExpandingIt() {
    long started = System.nanoTime();
    Violation violation =
        violation("{\"jsonrpc\":\"2.0\",\"id\":1e-999999999,\"method\":\"ping\"}", SESSION);
    assertEquals("id", violation.field());
    assertTrue(System.nanoTime() - started < 1_000_000_000L, "took a second or more");
  }

  @Test
  void theAnswerToAnInvalidIdCarriesThatId() {
    JsonRpcMessage request = message("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}");
    JsonRpcResponse answer = violation(request, SESSION).answerTo(request);
    assertEquals("1.5", answer.id().toString());
    assertEquals(INVALID_REQUEST, answer.error().code());
    assertEquals("id", answer.error().data().path("field").asText());
    assertTrue(answer.error().message().startsWith("Invalid Request: id "), answer.toString());
  }

  // ----------------------------------------------------------------------------------- params

  @ParameterizedTest
  @ValueSource(strings = {"[]", "[[[[[]]]]]", "[{\"name\":\"echo\"}]"})
  void paramsThatAreNotAnObjectAreInvalidParams(String params) {
    for (EnvelopeRules.Rules rules : new EnvelopeRules.Rules[] {SESSION, STATELESS}) {
      Violation violation =
          violation(
              "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":" + params + "}",
              rules);
      assertEquals(INVALID_PARAMS, violation.code());
      assertEquals("params", violation.field());
      assertEquals(
          "Invalid params: params must be an object, got array", violation.error().message());
    }
  }

  // ------------------------------------------------------------------------------------ _meta

  @ParameterizedTest
  @ValueSource(strings = {"1e308", "[]", "\"meta\"", "null", "true"})
  void aMetaThatIsNotAnObjectIsInvalidParams(String meta) {
    Violation violation =
        violation(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"_meta\":"
                + meta
                + "}}",
            UNKNOWN_VERSION);
    assertEquals(INVALID_PARAMS, violation.code());
    assertEquals("params._meta", violation.field());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "bad key!",
        "-leading",
        "trailing-",
        "com.example/trailing_",
        "1com.example/name",
        "com..example/name",
        "com.example-/name",
        "a/b/c",
        "/name"
      })
  void aMetaKeyBreakingTheNamingRulesIsInvalidParamsFrom2025_06_18On(String key) {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"_meta\":{"
            + JsonRpcCodec.mapper().getNodeFactory().textNode(key)
            + ":1}}}";
    assertFalse(MetaKeys.isMetaKey(key), key);
    Violation violation = violation(body, SESSION);
    assertEquals(INVALID_PARAMS, violation.code());
    assertTrue(violation.field().startsWith("params._meta["), violation.field());
    assertEquals(Optional.empty(), EnvelopeRules.check(message(body), OLD_SESSION), key);
    assertEquals(Optional.empty(), EnvelopeRules.check(message(body), UNKNOWN_VERSION), key);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "a",
        "progressToken",
        "io.modelcontextprotocol/",
        "com.example/a_b.c-d",
        "x-1/9",
        "openai/userAgent"
      })
  void metaKeysFollowingTheNamingRulesPass(String key) {
    assertTrue(MetaKeys.isMetaKey(key), key);
  }

  @ParameterizedTest
  @ValueSource(strings = {"{}", "[]", "1.5", "true", "null", "9007199254740993"})
  void aProgressTokenThatIsNeitherAStringNorASafeIntegerIsInvalidParams(String token) {
    Violation violation =
        violation(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\","
                + "\"_meta\":{\"progressToken\":"
                + token
                + "}}}",
            UNKNOWN_VERSION);
    assertEquals(INVALID_PARAMS, violation.code());
    assertEquals("params._meta.progressToken", violation.field());
  }

  // ------------------------------------------------------------------------- fields of methods

  @Test
  void toolsCallNeedsANameThatIsAString() {
    assertField("tools/call", "{}", "params.name", "is required");
    assertField("tools/call", "{\"name\":5}", "params.name", "must be a string, got number");
    assertField("tools/call", null, "params.name", "is required");
  }

  @Test
  void toolsCallArgumentsAreAnObjectWhenPresent() {
    assertField(
        "tools/call",
        "{\"name\":\"t\",\"arguments\":[]}",
        "params.arguments",
        "must be an object, got array");
  }

  @Test
  void resourcesReadNeedsAUriThatIsAString() {
    assertField("resources/read", "{}", "params.uri", "is required");
    assertField("resources/read", "{\"uri\":5}", "params.uri", "must be a string, got number");
    assertField("resources/subscribe", "{\"uri\":[]}", "params.uri", "must be a string, got array");
  }

  @Test
  void promptsGetNeedsANameAndStringArguments() {
    assertField("prompts/get", "{\"name\":{}}", "params.name", "must be a string, got object");
    assertField(
        "prompts/get",
        "{\"name\":\"p\",\"arguments\":{\"a\":1}}",
        "params.arguments[\"a\"]",
        "must be a string, got number");
  }

  @Test
  void completionCompleteNeedsARefAndAnArgumentObject() {
    assertField(
        "completion/complete",
        "{\"ref\":\"x\",\"argument\":{\"name\":\"a\",\"value\":\"b\"}}",
        "params.ref",
        "must be an object, got string");
    assertField(
        "completion/complete",
        "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"p\"},\"argument\":[]}",
        "params.argument",
        "must be an object, got array");
    assertField(
        "completion/complete",
        "{\"ref\":{\"type\":\"ref/other\"},\"argument\":{\"name\":\"a\",\"value\":\"b\"}}",
        "params.ref.type",
        "must be \"ref/prompt\" or \"ref/resource\", got \"ref/other\"");
    assertField(
        "completion/complete",
        "{\"ref\":{\"type\":\"ref/resource\"},\"argument\":{\"name\":\"a\",\"value\":\"b\"}}",
        "params.ref.uri",
        "is required");
    assertField(
        "completion/complete",
        "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"p\"},\"argument\":{\"name\":\"a\",\"value\":1}}",
        "params.argument.value",
        "must be a string, got number");
  }

  @Test
  void listCursorsAreStrings() {
    for (String method :
        new String[] {"tools/list", "prompts/list", "resources/list", "resources/templates/list"}) {
      assertField(method, "{\"cursor\":5}", "params.cursor", "must be a string, got number");
    }
  }

  @Test
  void loggingSetLevelNeedsAKnownLevel() {
    assertField("logging/setLevel", "{\"level\":7}", "params.level", null);
    assertField("logging/setLevel", "{\"level\":\"loud\"}", "params.level", null);
    assertField("logging/setLevel", "{}", "params.level", "is required");
  }

  @Test
  void initializeNeedsAVersionCapabilitiesAndClientInfo() {
    assertField(
        "initialize",
        "{\"protocolVersion\":20251125,\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}",
        "params.protocolVersion",
        "must be a string, got number");
    assertField(
        "initialize",
        "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":[],\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}",
        "params.capabilities",
        "must be an object, got array");
    assertField(
        "initialize",
        "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\"}}",
        "params.clientInfo.version",
        "is required");
  }

  @Test
  void anUnknownMethodGetsTheEnvelopeRulesOnly() {
    assertEquals(
        Optional.empty(),
        EnvelopeRules.check(
            message("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x/y\",\"params\":{\"name\":5}}"),
            SESSION));
  }

  // --------------------------------------------------------------------------------- 2026-07-28

  @Test
  void statelessInputResponsesAreAnObjectOfClientResults() {
    assertStateless(
        "\"inputResponses\":[]", "params.inputResponses", "must be an object, got array");
    assertStateless(
        "\"inputResponses\":{\"k\":\"yes\"}",
        "params.inputResponses[\"k\"]",
        "must be an object (an elicitation, sampling or roots result), got string");
    assertStateless(
        "\"inputResponses\":{\"k\":{\"action\":\"maybe\"}}",
        "params.inputResponses[\"k\"]",
        ".action must be \"accept\", \"decline\" or \"cancel\", got \"maybe\"");
    assertStateless(
        "\"inputResponses\":{\"k\":{\"role\":\"assistant\",\"content\":{}}}",
        "params.inputResponses[\"k\"]",
        ".model must be a string, got nothing");
    assertStateless(
        "\"inputResponses\":{\"k\":{\"roots\":[{\"uri\":1}]}}",
        "params.inputResponses[\"k\"]",
        ".roots[0].uri must be a string");
  }

  @Test
  void anInputResponseOfNoKnownKindIsLeftForTheServerToIgnore() {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\","
            + "\"inputResponses\":{\"unexpected\":{\"x\":1}},"
            + META_2026
            + "}}";
    assertEquals(Optional.empty(), EnvelopeRules.check(message(body), STATELESS));
  }

  @Test
  void statelessRequestStateIsAString() {
    assertStateless("\"requestState\":42", "params.requestState", "must be a string, got number");
  }

  @Test
  void statelessRequestMetadataHasItsTypes() {
    assertStatelessMeta(
        "\"io.modelcontextprotocol/clientInfo\":5",
        "params._meta[\"io.modelcontextprotocol/clientInfo\"]");
    assertStatelessMeta(
        "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"c\",\"version\":2}",
        "params._meta[\"io.modelcontextprotocol/clientInfo\"].version");
    assertStatelessMeta(
        "\"io.modelcontextprotocol/logLevel\":\"loud\"",
        "params._meta[\"io.modelcontextprotocol/logLevel\"]");
  }

  @Test
  void statelessListenNeedsANotificationFilter() {
    String listen =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\",\"params\":{"
            + META_2026
            + "%s}}";
    assertEquals("params.notifications", violation(String.format(listen, ""), STATELESS).field());
    assertEquals(
        "params.notifications.toolsListChanged",
        violation(String.format(listen, ",\"notifications\":{\"toolsListChanged\":1}"), STATELESS)
            .field());
    assertEquals(
        "params.notifications.resourceSubscriptions[1]",
        violation(
                String.format(listen, ",\"notifications\":{\"resourceSubscriptions\":[\"a\",2]}"),
                STATELESS)
            .field());
  }

  @Test
  void sessionEraRequestsMayCarryFieldsOnlyTheStatelessRevisionTypes() {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\","
            + "\"inputResponses\":5,\"requestState\":[]}}";
    assertEquals(Optional.empty(), EnvelopeRules.check(message(body), SESSION));
  }

  // ------------------------------------------------------------------------------ notifications

  @Test
  void aNotificationsParamsAndMetaAreObjects() {
    assertEquals(
        "params",
        violation(
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\",\"params\":[]}",
                SESSION)
            .field());
    assertEquals(
        "params._meta",
        violation(
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\",\"params\":{\"_meta\":1}}",
                SESSION)
            .field());
  }

  @Test
  void aCancelNamesTheRequestByAStringOrSafeInteger() {
    Violation violation =
        violation(
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":{}}}",
            SESSION);
    assertEquals(INVALID_PARAMS, violation.code());
    assertEquals("params.requestId", violation.field());
    assertEquals(
        "params.requestId",
        violation("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\"}", SESSION).field());
    JsonRpcMessage notification =
        message("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{}}");
    assertNull(violation(notification, SESSION).answerTo(notification).id().textValue());
  }

  @Test
  void aClientProgressNotificationNeedsATokenAndANumber() {
    assertEquals(
        "params.progress",
        violation(
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":\"half\"}}",
                SESSION)
            .field());
  }

  // -------------------------------------------------------------------------- client answers

  @Test
  void aClientAnswerHasAnObjectResult() {
    JsonRpcMessage answer = message("{\"jsonrpc\":\"2.0\",\"id\":\"gw-1\",\"result\":5}");
    Violation violation = violation(answer, SESSION);
    assertEquals(INVALID_REQUEST, violation.code());
    assertEquals("result", violation.field());
    JsonRpcResponse upstream = EnvelopeRules.upstreamErrorFor((JsonRpcResponse) answer, violation);
    assertEquals("\"gw-1\"", upstream.id().toString());
    JsonRpcError error = upstream.error();
    assertEquals(INTERNAL_ERROR, error.code());
    assertTrue(error.message().contains("result must be an object, got number"), error.message());
  }

  @Test
  void aClientAnswersMetaIsAnObject() {
    Violation violation =
        violation("{\"jsonrpc\":\"2.0\",\"id\":\"gw-1\",\"result\":{\"_meta\":[]}}", SESSION);
    assertEquals(INVALID_REQUEST, violation.code());
    assertEquals("result._meta", violation.field());
  }

  @Test
  void aClientAnswerWithAnUnusableIdHasNoUpstreamError() {
    JsonRpcMessage answer = message("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"result\":{}}");
    Violation violation = violation(answer, SESSION);
    assertEquals("id", violation.field());
    assertNull(EnvelopeRules.upstreamErrorFor((JsonRpcResponse) answer, violation));
    JsonRpcMessage nullId =
        message("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-1,\"message\":\"x\"}}");
    assertEquals("id", violation(nullId, SESSION).field());
  }

  // ---------------------------------------------------------------------------------- helpers

  private static void assertField(String method, String params, String field, String problem) {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\""
            + method
            + "\""
            + (params == null ? "" : ",\"params\":" + params)
            + "}";
    Violation violation = violation(body, SESSION);
    assertEquals(INVALID_PARAMS, violation.code(), body);
    assertEquals(field, violation.field(), body);
    if (problem != null) {
      assertEquals(problem, violation.problem(), body);
    }
  }

  private static void assertStateless(String params, String field, String problem) {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\","
            + params
            + ","
            + META_2026
            + "}}";
    Violation violation = violation(body, STATELESS);
    assertEquals(INVALID_PARAMS, violation.code(), body);
    assertEquals(field, violation.field(), body);
    assertEquals(problem, violation.problem(), body);
  }

  private static void assertStatelessMeta(String metaEntry, String field) {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
            + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{},"
            + metaEntry
            + "}}}";
    Violation violation = violation(body, STATELESS);
    assertEquals(INVALID_PARAMS, violation.code(), body);
    assertEquals(field, violation.field(), body);
  }

  private static Violation violation(String body, EnvelopeRules.Rules rules) {
    return violation(message(body), rules);
  }

  private static Violation violation(JsonRpcMessage message, EnvelopeRules.Rules rules) {
    Optional<Violation> violation = EnvelopeRules.check(message, rules);
    assertTrue(violation.isPresent(), "passed: " + message);
    return violation.get();
  }

  private static JsonRpcMessage message(String body) {
    ParsedPayload payload = JsonRpcCodec.parse(body);
    assertTrue(payload instanceof ParsedPayload.Single, body + " -> " + payload);
    return ((ParsedPayload.Single) payload).message();
  }
}
