package dev.mcpsupervisor.protocol.jsonrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every malformed payload is answered with the exact JSON-RPC error a client expects (code, message
 * and id), and never with an exception.
 */
class JsonRpcCodecBadInputTest {

  private static final String REQUEST = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";

  static Stream<Arguments> badInputs() {
    return Stream.of(
        // not JSON: -32700, id null
        bad(
            "truncated object",
            text("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\""),
            parseError("unexpected end of input")),
        bad(
            "truncated string",
            text("{\"jsonrpc\":\"2.0\",\"method\":\"x"),
            parseError("unexpected end of input")),
        bad("truncated array", text("[" + REQUEST + ","), parseError("unexpected end of input")),
        bad(
            "trailing garbage",
            text(REQUEST + " x"),
            parseError("trailing data after the JSON value")),
        bad(
            "two values",
            text(REQUEST + REQUEST),
            parseError("trailing data after the JSON value")),
        bad("empty payload", text(""), parseError("empty payload")),
        bad("whitespace only", text(" \r\n\t"), parseError("empty payload")),
        bad(
            "single quotes",
            text("{'jsonrpc':'2.0'}"),
            parseError(
                "Unexpected character (''' (code 39)): was expecting double-quote to start field name"
                    + " at line 1, column 2")),
        bad(
            "trailing comma",
            text("{\"jsonrpc\":\"2.0\",}"),
            parseError(
                "Unexpected character ('}' (code 125)): was expecting double-quote to start field name"
                    + " at line 1, column 18")),
        bad(
            "unquoted word",
            text("hello"),
            parseError(
                "Unrecognized token 'hello': was expecting (JSON String, Number, Array, Object or token"
                    + " 'null', 'true' or 'false') at line 1, column 1")),
        bad(
            "duplicate keys",
            text("{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"x\"}"),
            parseError("duplicate member \"id\"")),
        bad(
            "nesting depth 10,000",
            text("[".repeat(10_000) + "]".repeat(10_000)),
            parseError("nesting depth exceeds 64")),
        bad(
            "params nested one level too deep",
            JsonRpcCodecBadInputTest::paramsOneLevelTooDeep,
            parseError("nesting depth exceeds 64")),
        bad(
            "string over 8 MiB",
            () -> withParam("\"" + "x".repeat(JsonRpcCodec.MAX_STRING_LENGTH + 1) + "\""),
            parseError("string longer than 8388608 characters")),
        bad(
            "number of 1,001 digits",
            () -> withParam("1".repeat(1001)),
            parseError("number longer than 1000 characters")),
        bad(
            "member name over 50,000 characters",
            () -> withParam("{\"" + "n".repeat(50_001) + "\":1}"),
            parseError("member name longer than 50000 characters")),
        bad(
            "payload over 16 MiB",
            JsonRpcCodecBadInputTest::paddedBeyondDocumentLimit,
            parseError("payload larger than 16777216 bytes")),
        bad(
            "UTF-8 byte order mark",
            () -> concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, text(REQUEST).get()),
            parseError("UTF-8 byte order mark not allowed")),
        bad(
            "invalid UTF-8 in a string",
            () ->
                concat(
                    text("{\"jsonrpc\":\"2.0\",\"method\":\"").get(),
                    new byte[] {(byte) 0xFF},
                    text("\"}").get()),
            parseError("Invalid UTF-8 start byte 0xff at line 1, column 29")),
        bad(
            "truncated UTF-8 sequence in a string",
            () ->
                concat(
                    text("{\"jsonrpc\":\"2.0\",\"method\":\"").get(),
                    new byte[] {(byte) 0xC3, 'A'},
                    text("\"}").get()),
            parseError("Invalid UTF-8 middle byte 0x41 at line 1, column 30")),

        // JSON, but not a message: -32600
        bad(
            "a bare string",
            text("\"tools/list\""),
            invalidRequest(null, "expected an object or an array, got string")),
        bad(
            "a number",
            text("42"),
            invalidRequest(null, "expected an object or an array, got number")),
        bad("null", text("null"), invalidRequest(null, "expected an object or an array, got null")),
        bad(
            "a boolean",
            text("true"),
            invalidRequest(null, "expected an object or an array, got boolean")),
        bad("empty batch", text("[]"), invalidRequest(null, "empty batch")),
        bad(
            "batch of non-objects",
            text("[1,\"x\",null]"),
            batch(
                invalidRequest(null, "expected an object, got number"),
                invalidRequest(null, "expected an object, got string"),
                invalidRequest(null, "expected an object, got null"))),
        bad(
            "batch of valid and invalid elements",
            text(
                "["
                    + REQUEST
                    + ",{\"jsonrpc\":\"1.0\",\"id\":\"b\",\"method\":\"x\"},[],"
                    + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]"),
            batch(
                "ok",
                invalidRequest("\"b\"", "\"jsonrpc\" must be \"2.0\""),
                invalidRequest(null, "expected an object, got array"),
                "ok")),
        bad(
            "missing jsonrpc",
            text("{\"id\":1,\"method\":\"x\"}"),
            invalidRequest("1", "missing \"jsonrpc\"")),
        bad(
            "jsonrpc 1.0",
            text("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"x\"}"),
            invalidRequest("1", "\"jsonrpc\" must be \"2.0\"")),
        bad(
            "jsonrpc as a number",
            text("{\"jsonrpc\":2.0,\"id\":1,\"method\":\"x\"}"),
            invalidRequest("1", "\"jsonrpc\" must be \"2.0\"")),
        bad(
            "id true",
            text("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"x\"}"),
            invalidRequest(null, "\"id\" must be a string or a number, got boolean")),
        bad(
            "id object",
            text("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}"),
            invalidRequest(null, "\"id\" must be a string or a number, got object")),
        bad(
            "id array",
            text("{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"x\"}"),
            invalidRequest(null, "\"id\" must be a string or a number, got array")),
        bad(
            "null id on a request",
            text("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"x\"}"),
            invalidRequest(null, "\"id\" must be a string or a number, got null")),
        bad(
            "no method, result or error",
            text("{\"jsonrpc\":\"2.0\",\"id\":7}"),
            invalidRequest("7", "no \"method\", \"result\" or \"error\"")),
        bad(
            "empty method",
            text("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}"),
            invalidRequest("1", "\"method\" must not be empty")),
        bad(
            "method a number",
            text("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":42}"),
            invalidRequest("1", "\"method\" must be a string, got number")),
        bad(
            "method null",
            text("{\"jsonrpc\":\"2.0\",\"method\":null}"),
            invalidRequest(null, "\"method\" must be a string, got null")),
        bad(
            "params a string",
            text("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"x\",\"params\":\"p\"}"),
            invalidRequest("\"a\"", "\"params\" must be an object or an array, got string")),
        bad(
            "params a number",
            text("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":3}"),
            invalidRequest(null, "\"params\" must be an object or an array, got number")),
        bad(
            "params null",
            text("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\",\"params\":null}"),
            invalidRequest("2", "\"params\" must be an object or an array, got null")),
        bad(
            "method and result",
            text("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"result\":{}}"),
            invalidRequest("1", "has both \"method\" and \"result\"")),
        bad(
            "method and error",
            text(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"error\":{\"code\":1,\"message\":\"m\"}}"),
            invalidRequest("1", "has both \"method\" and \"error\"")),
        bad(
            "result and error",
            text(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1,\"message\":\"m\"}}"),
            invalidRequest("1", "has both \"result\" and \"error\"")),
        bad(
            "response without id",
            text("{\"jsonrpc\":\"2.0\",\"result\":{}}"),
            invalidRequest(null, "a response must have an \"id\"")),
        bad(
            "result with null id",
            text("{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}"),
            invalidRequest(null, "\"id\" may be null only in an error response")),
        bad(
            "error not an object",
            text("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"boom\"}"),
            invalidRequest("1", "\"error\" must be an object, got string")),
        bad(
            "error without code",
            text("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"message\":\"m\"}}"),
            invalidRequest("1", "missing \"error.code\"")),
        bad(
            "error code a string",
            text(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":\"-32600\",\"message\":\"m\"}}"),
            invalidRequest("1", "\"error.code\" must be an integer, got string")),
        bad(
            "error code a fraction",
            text("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1.5,\"message\":\"m\"}}"),
            invalidRequest("1", "\"error.code\" must be an integer, got number")),
        bad(
            "error code beyond 32 bits",
            text(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":2147483648,\"message\":\"m\"}}"),
            invalidRequest("1", "\"error.code\" must fit in 32 bits")),
        bad(
            "error without message",
            text("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1}}"),
            invalidRequest("1", "missing \"error.message\"")),
        bad(
            "error message not a string",
            text("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1,\"message\":[]}}"),
            invalidRequest("1", "\"error.message\" must be a string, got array")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInputs")
  void badInputIsAnsweredWithTheExactError(
      String description, Supplier<byte[]> payload, String expected) {
    ParsedPayload parsed = JsonRpcCodec.parse(payload.get());
    assertEquals(expected, render(parsed), description);
  }

  /**
   * A Rejected renders as the error response on the wire; a Batch as its elements ("ok" for a valid
   * message).
   */
  private static String render(ParsedPayload parsed) {
    if (parsed instanceof ParsedPayload.Rejected rejected) {
      return JsonRpcCodec.toString(rejected.error());
    }
    if (parsed instanceof ParsedPayload.Batch batch) {
      return batch.elements().stream()
          .map(element -> element.message() != null ? "ok" : JsonRpcCodec.toString(element.error()))
          .collect(Collectors.joining(", ", "[", "]"));
    }
    return fail("expected a rejection, got " + parsed);
  }

  private static Arguments bad(String description, Supplier<byte[]> payload, String expected) {
    return Arguments.of(description, payload, expected);
  }

  private static Supplier<byte[]> text(String text) {
    return () -> text.getBytes(StandardCharsets.UTF_8);
  }

  private static String parseError(String problem) {
    return "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error: "
        + problem.replace("\"", "\\\"")
        + "\"}}";
  }

  private static String invalidRequest(String idJson, String problem) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + (idJson == null ? "null" : idJson)
        + ",\"error\":{\"code\":-32600,\"message\":\"Invalid Request: "
        + problem.replace("\"", "\\\"")
        + "\"}}";
  }

  private static String batch(String... elements) {
    return Arrays.stream(elements).collect(Collectors.joining(", ", "[", "]"));
  }

  private static byte[] withParam(String paramJson) {
    return ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":[" + paramJson + "]}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The message object is depth 1 and params depth 2, so 63 more arrays inside params reach depth
   * 65.
   */
  private static byte[] paramsOneLevelTooDeep() {
    int inner = JsonRpcCodec.MAX_NESTING_DEPTH - 1;
    return withParam("[".repeat(inner) + "]".repeat(inner));
  }

  private static byte[] paddedBeyondDocumentLimit() {
    byte[] message = text(REQUEST).get();
    byte[] padded = new byte[(int) JsonRpcCodec.MAX_DOCUMENT_LENGTH + 1];
    Arrays.fill(padded, (byte) ' ');
    System.arraycopy(message, 0, padded, 0, message.length);
    return padded;
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }
}
