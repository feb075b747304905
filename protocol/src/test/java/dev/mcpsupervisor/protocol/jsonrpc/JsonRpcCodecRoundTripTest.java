package dev.mcpsupervisor.protocol.jsonrpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What is read is written back as it came: ids keep their type, params and results are untouched,
 * extras survive.
 */
class JsonRpcCodecRoundTripTest {

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":-7,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1.50,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":123456789012345678901234567890,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"\",\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"a \\\"quoted\\\" id ü\",\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":0.25}}",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":[1,\"two\",{\"z\":null,\"a\":true}]}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"r\",\"result\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":null}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\",\"data\":{\"at\":[1,2]}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"x\",\"params\":{},\"_meta\":{\"k\":1},\"zeta\":1,\"alpha\":[]}",
      })
  void messageIsWrittenBackExactlyAsRead(String wire) {
    JsonRpcMessage message = single(wire);
    assertEquals(wire, JsonRpcCodec.toString(message));
    assertArrayEquals(wire.getBytes(StandardCharsets.UTF_8), JsonRpcCodec.toBytes(message));
  }

  @Test
  void idsKeepTheirJsonType() {
    assertEquals(TextNode.valueOf("1"), request("\"1\"").id());
    JsonNode integer = request("1").id();
    assertTrue(integer.isIntegralNumber());
    assertEquals(1, integer.intValue());
    JsonNode fraction = request("1.5").id();
    assertTrue(fraction.isNumber() && !fraction.isIntegralNumber());
    JsonNode huge = request("123456789012345678901234567890").id();
    assertTrue(huge.isBigInteger());
    assertEquals(new BigInteger("123456789012345678901234567890"), huge.bigIntegerValue());
    assertFalse(request("\"1\"").id().equals(request("1").id()), "\"1\" and 1 are different ids");
  }

  @Test
  void paramsAndResultPassThroughUntouched() {
    String params =
        "{\"name\":\"echo\",\"arguments\":{\"z\":1,\"a\":[3.141592653589793238462643383279,1E+400,-0.0010],"
            + "\"nested\":{\"y\":{\"x\":\"é\\n\\u0000\"}},\"m\":null,\"b\":false}}";
    JsonRpcRequest request =
        (JsonRpcRequest)
            single(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                    + params
                    + "}");
    assertEquals(params, request.params().toString());
    assertEquals(
        List.of("z", "a", "nested", "m", "b"), fieldNames(request.params().get("arguments")));
    assertEquals(
        "3.141592653589793238462643383279", request.params().at("/arguments/a/0").asText());

    String result =
        "{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"structuredContent\":{\"b\":2,\"a\":1},\"isError\":false}";
    JsonRpcResponse response =
        (JsonRpcResponse) single("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":" + result + "}");
    assertEquals(result, response.result().toString());
    assertEquals(List.of("b", "a"), fieldNames(response.result().get("structuredContent")));
  }

  @Test
  void unknownMembersAreKeptInOrderAndWrittenAfterTheKnownOnes() {
    JsonRpcMessage message =
        single(
            "{\"zeta\":1,\"jsonrpc\":\"2.0\",\"_meta\":{\"a\":1},\"method\":\"x\",\"alpha\":true,\"id\":2}");
    assertEquals(List.of("zeta", "_meta", "alpha"), fieldNames(message.extras()));
    assertEquals(
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\",\"zeta\":1,\"_meta\":{\"a\":1},\"alpha\":true}",
        JsonRpcCodec.toString(message));
  }

  @Test
  void paramsOnAResponseIsAnExtra() {
    JsonRpcResponse response =
        (JsonRpcResponse) single("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"params\":[1]}");
    assertEquals("{\"params\":[1]}", response.extras().toString());
  }

  @Test
  void notificationHasNoId() {
    JsonRpcNotification notification =
        assertInstanceOf(
            JsonRpcNotification.class,
            single(
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                    + "\"params\":{\"requestId\":3}}"));
    assertEquals("notifications/cancelled", notification.method());
    assertEquals(3, notification.params().get("requestId").intValue());
  }

  @Test
  void errorResponseKeepsCodeMessageAndData() {
    JsonRpcResponse response =
        (JsonRpcResponse)
            single(
                "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"error\":{\"code\":-32001,\"message\":\"lost\",\"data\":{\"retryable\":true}}}");
    assertTrue(response.isError());
    assertEquals(JsonRpcErrorCodes.UPSTREAM_SESSION_LOST, response.error().code());
    assertEquals("lost", response.error().message());
    assertTrue(response.error().data().get("retryable").booleanValue());
  }

  @Test
  void batchKeepsEveryMessageInOrder() {
    ParsedPayload parsed =
        JsonRpcCodec.parse(
            "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"},"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"b\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}]");
    List<ParsedPayload.Element> elements =
        assertInstanceOf(ParsedPayload.Batch.class, parsed).elements();
    assertEquals(3, elements.size());
    assertEquals("a", assertInstanceOf(JsonRpcRequest.class, elements.get(0).message()).method());
    assertEquals(
        "b", assertInstanceOf(JsonRpcNotification.class, elements.get(1).message()).method());
    assertInstanceOf(JsonRpcResponse.class, elements.get(2).message());
    elements.forEach(element -> assertNull(element.error()));
  }

  @Test
  void nestingExactlyAtTheLimitIsAccepted() {
    // message object depth 1, params array depth 2, then 62 more arrays: depth 64
    int inner = JsonRpcCodec.MAX_NESTING_DEPTH - 2;
    String wire =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":["
            + "[".repeat(inner)
            + "]".repeat(inner)
            + "]}";
    assertEquals(wire, JsonRpcCodec.toString(single(wire)));
  }

  @Test
  void writtenFormIsOneLineOfUtf8() {
    JsonRpcRequest request =
        new JsonRpcRequest(
            TextNode.valueOf("id"),
            "tools/call",
            JsonRpcCodec.emptyObject().put("text", "line one\nline two\r\n\u2028 é 😀"));
    byte[] bytes = JsonRpcCodec.toBytes(request);
    for (byte b : bytes) {
      assertTrue(b != '\n' && b != '\r', "no raw line break");
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    assertTrue(text.contains("line one\\nline two\\r\\n\u2028 é 😀"), text);
    assertEquals(request.params(), assertInstanceOf(JsonRpcRequest.class, single(text)).params());
  }

  @Test
  void loneSurrogateStaysEscapedInsteadOfBreakingTheWriter() {
    JsonRpcMessage message =
        single("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":[\"\\ud800\"]}");
    assertEquals(
        "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":[\"\\uD800\"]}",
        new String(JsonRpcCodec.toBytes(message), StandardCharsets.UTF_8));
  }

  @Test
  void handBuiltMessagesAreWrittenInMemberOrderAndExtrasNeverOverrideKnownMembers() {
    ObjectNode extras =
        JsonRpcCodec.emptyObject().put("id", 99).put("jsonrpc", "1.0").put("trace", "t");
    JsonRpcRequest request =
        new JsonRpcRequest(TextNode.valueOf("a"), "m", JsonRpcCodec.emptyObject(), extras);
    assertEquals(
        "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"m\",\"params\":{},\"trace\":\"t\"}",
        JsonRpcCodec.toString(request));
    assertEquals(
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"bad\"}}",
        JsonRpcCodec.toString(
            JsonRpcResponse.failure(null, JsonRpcErrorCodes.INVALID_REQUEST, "bad")));
    assertEquals(
        "{\"jsonrpc\":\"2.0\",\"method\":\"n\"}",
        JsonRpcCodec.toString(new JsonRpcNotification("n", null)));
  }

  @Test
  void emptyObjectIsNewEveryTime() {
    ObjectNode first = JsonRpcCodec.emptyObject();
    ObjectNode second = JsonRpcCodec.emptyObject();
    assertNotSame(first, second);
    first.put("mutated", true);
    assertTrue(second.isEmpty());
    assertTrue(new JsonRpcNotification("n", null).extras().isEmpty());
  }

  @Test
  void mapperIsShared() {
    assertSame(JsonRpcCodec.mapper(), JsonRpcCodec.mapper());
  }

  @Test
  void stringAndBytesParseAlike() {
    String wire = "{\"jsonrpc\":\"2.0\",\"id\":\"é\",\"method\":\"ping\"}";
    assertEquals(
        JsonRpcCodec.parse(wire.getBytes(StandardCharsets.UTF_8)), JsonRpcCodec.parse(wire));
  }

  @Test
  void readRaisesTheErrorWithTheIdItCouldRead() {
    JsonRpcException e =
        assertThrows(
            JsonRpcException.class,
            () ->
                JsonRpcCodec.read(
                    JsonRpcCodec.mapper()
                        .readTree("{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"method\":\"\"}")));
    assertEquals(JsonRpcErrorCodes.INVALID_REQUEST, e.error().code());
    assertEquals("Invalid Request: \"method\" must not be empty", e.error().message());
    assertEquals(TextNode.valueOf("q"), e.id());
  }

  private static JsonRpcMessage single(String wire) {
    ParsedPayload parsed = JsonRpcCodec.parse(wire);
    return assertInstanceOf(ParsedPayload.Single.class, parsed, () -> "parsed as " + parsed)
        .message();
  }

  private static JsonRpcRequest request(String idJson) {
    return (JsonRpcRequest)
        single("{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"method\":\"ping\"}");
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
