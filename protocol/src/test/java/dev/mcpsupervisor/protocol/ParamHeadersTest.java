package dev.mcpsupervisor.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** SEP-2243 parameters mirrored into Mcp-Param headers: declarations, encoding, the check. */
class ParamHeadersTest {

  private static JsonNode json(String text) {
    try {
      return JsonRpcCodec.mapper().readTree(text);
    } catch (Exception e) {
      throw new IllegalArgumentException(text, e);
    }
  }

  private static final JsonNode SCHEMA =
      json(
          """
          {"type":"object","properties":{
            "region":{"type":"string","x-mcp-header":"Region"},
            "limit":{"type":"integer","x-mcp-header":"Limit"},
            "dry":{"type":"boolean","x-mcp-header":"Dry-Run"},
            "query":{"type":"string"},
            "target":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
            "x-mcp-header":{"type":"string"}}}
          """);

  private static Optional<String> check(String arguments, String... headers) {
    Map<String, String> sent = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (int i = 0; i < headers.length; i += 2) {
      sent.put(headers[i], headers[i + 1]);
    }
    return ParamHeaders.mismatch(ParamHeaders.declarations(SCHEMA), json(arguments), sent::get);
  }

  @Test
  void declarationsFollowPropertiesOnlyIncludingNestedObjects() {
    ParamHeaders.Declarations declarations = ParamHeaders.declarations(SCHEMA);
    assertTrue(declarations.isValid(), declarations.invalid());
    assertEquals(
        List.of("Mcp-Param-Region", "Mcp-Param-Limit", "Mcp-Param-Dry-Run", "Mcp-Param-Zone"),
        declarations.headers().stream().map(ParamHeaders.Declaration::header).toList());
    assertEquals(List.of("target", "zone"), declarations.headers().get(3).path());
    assertTrue(ParamHeaders.declarations(json("{\"type\":\"object\"}")).headers().isEmpty());
    assertTrue(ParamHeaders.declarations(null).headers().isEmpty());
  }

  @Test
  void declarationsThatBreakTheRulesMakeTheToolInvalid() {
    for (String schema :
        List.of(
            "{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"\"}}}",
            "{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"A B\"}}}",
            "{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"A\\r\\n\"}}}",
            "{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":7}}}",
            "{\"properties\":{\"a\":{\"type\":\"number\",\"x-mcp-header\":\"A\"}}}",
            "{\"properties\":{\"a\":{\"type\":\"object\",\"x-mcp-header\":\"A\"}}}",
            "{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"Same\"},"
                + "\"b\":{\"type\":\"string\",\"x-mcp-header\":\"sAME\"}}}",
            "{\"properties\":{\"a\":{\"type\":\"array\",\"items\":"
                + "{\"type\":\"string\",\"x-mcp-header\":\"A\"}}}}",
            "{\"anyOf\":[{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"A\"}}}]}",
            "{\"$defs\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"A\"}}}")) {
      ParamHeaders.Declarations declarations = ParamHeaders.declarations(json(schema));
      assertFalse(declarations.isValid(), schema);
      assertTrue(
          ParamHeaders.mismatch(declarations, json("{}"), name -> null).isPresent(),
          "a call of an invalid tool cannot be checked: " + schema);
    }
  }

  @Test
  void matchingHeadersPassPlainOrEncodedWithNumbersComparedAsNumbers() {
    assertEquals(
        Optional.empty(),
        check(
            "{\"region\":\"us-west1\",\"limit\":42,\"dry\":false,\"target\":{\"zone\":\"b\"}}",
            "mcp-param-region",
            " us-west1 ",
            "MCP-PARAM-LIMIT",
            "42.0",
            "Mcp-Param-Dry-Run",
            "false",
            "Mcp-Param-Zone",
            "=?base64?Yg==?="));
    assertEquals(
        Optional.empty(),
        check(
            "{\"region\":\"Hello, \u4e16\u754c\"}",
            "Mcp-Param-Region",
            "=?base64?SGVsbG8sIOS4lueVjA==?="));
    assertEquals(Optional.empty(), check("{\"query\":\"no header needed\"}"));
    assertEquals(Optional.empty(), check("{\"region\":null}"), "null: no header expected");
  }

  @Test
  void valuesWithoutTheCompleteWrapperAreLiteral() {
    assertEquals(
        Optional.empty(), check("{\"region\":\"SGVsbG8=\"}", "Mcp-Param-Region", "SGVsbG8="));
    assertEquals(
        Optional.empty(),
        check("{\"region\":\"=?base64?SGVsbG8=\"}", "Mcp-Param-Region", "=?base64?SGVsbG8="));
    assertTrue(
        check("{\"region\":\"SGVsbG8=\"}", "Mcp-Param-Region", "=?base64?SGVsbG8=?=").isPresent());
  }

  @Test
  void brokenBase64AndForbiddenCharactersAreRefused() {
    for (String broken :
        List.of(
            "=?base64?SGVsbG8?=",
            "=?base64?SGVs!!!bG8=?=",
            "=?base64?SGVsbG8===?=",
            "=?base64?/w==?=")) {
      Optional<String> mismatch = check("{\"region\":\"Hello\"}", "Mcp-Param-Region", broken);
      assertTrue(mismatch.isPresent(), broken);
      assertTrue(mismatch.get().contains("invalid"), mismatch.get());
    }
    assertTrue(check("{\"region\":\"a\\u0001b\"}", "Mcp-Param-Region", "a\u0001b").isPresent());
    assertTrue(check("{\"region\":\"\u00e9\"}", "Mcp-Param-Region", "\u00e9").isPresent());
  }

  @Test
  void aMissingHeaderAHeaderWithoutBodyValueAndADifferentValueAreMismatches() {
    assertTrue(check("{\"region\":\"test-value\"}").get().contains("Mcp-Param-Region is missing"));
    assertTrue(check("{\"target\":{\"zone\":\"a\"}}").get().contains("arguments.target.zone"));
    assertTrue(check("{}", "Mcp-Param-Region", "eu").get().contains("no arguments.region"));
    assertTrue(check("{\"region\":\"us\"}", "Mcp-Param-Region", "eu").isPresent());
    assertTrue(check("{\"limit\":42}", "Mcp-Param-Limit", "forty-two").isPresent());
    assertTrue(check("{\"dry\":true}", "Mcp-Param-Dry-Run", "TRUE").isPresent());
    assertTrue(
        check("{\"region\":{\"nested\":1}}", "Mcp-Param-Region", "{}").isPresent(),
        "an object is never mirrored");
  }

  @Test
  void encodingKeepsPlainAsciiAndWrapsTheRestAndRoundTrips() {
    assertEquals("us-west1", ParamHeaders.encode("us-west1"));
    assertEquals("=?base64?SGVsbG8sIOS4lueVjA==?=", ParamHeaders.encode("Hello, \u4e16\u754c"));
    assertEquals("=?base64?IHBhZGRlZCA=?=", ParamHeaders.encode(" padded "));
    assertEquals("=?base64?bGluZTEKbGluZTI=?=", ParamHeaders.encode("line1\nline2"));
    assertEquals("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", ParamHeaders.encode("=?base64?literal?="));
    for (String value : List.of("", " x", "=?base64?literal?=", "Gr\u00fc\u00dfe", "tab\there")) {
      ParamHeaders.Decoded decoded = ParamHeaders.decode(ParamHeaders.encode(value));
      assertNull(decoded.invalid(), value);
      assertEquals(value, decoded.value());
    }
  }

  @Test
  void headersForMirrorWhatTheArgumentsHold() {
    assertEquals(
        Map.of(
            "Mcp-Param-Region", "=?base64?IGV1IA==?=",
            "Mcp-Param-Limit", "7",
            "Mcp-Param-Dry-Run", "true"),
        ParamHeaders.headersFor(
            ParamHeaders.declarations(SCHEMA),
            json(
                "{\"region\":\" eu \",\"limit\":7,\"dry\":true,\"query\":\"q\",\"target\":null}")));
  }
}
