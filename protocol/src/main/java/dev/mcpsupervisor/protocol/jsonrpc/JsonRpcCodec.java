package dev.mcpsupervisor.protocol.jsonrpc;

import static dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError.INVALID_REQUEST;
import static dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError.PARSE_ERROR;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads and writes JSON-RPC 2.0 messages as Jackson trees. Reading never throws for bad input: it
 * answers with the JSON-RPC error a client expects. Reading is bounded by Jackson's stream read
 * constraints.
 *
 * <p>Numbers keep their exact value: integers become int/long/BigInteger nodes and non-integral
 * numbers become BigDecimal nodes with their scale kept ({@code 1.50} stays {@code 1.50}); only the
 * exponent notation is normalized ({@code 1e5} is written back as {@code 1E+5}, the same number).
 */
public final class JsonRpcCodec {

  /** Deepest nesting of arrays and objects accepted. */
  public static final int MAX_NESTING_DEPTH = 64;

  /** Longest string value accepted, in characters. */
  public static final int MAX_STRING_LENGTH = 8 * 1024 * 1024;

  /** Largest payload accepted, in bytes. */
  public static final long MAX_DOCUMENT_LENGTH = 16L * 1024 * 1024;

  /** Longest number accepted, in characters. */
  public static final int MAX_NUMBER_LENGTH = 1000;

  /** Longest member name accepted, in characters. */
  public static final int MAX_NAME_LENGTH = 50_000;

  private static final String JSONRPC = "jsonrpc";
  private static final String ID = "id";
  private static final String METHOD = "method";
  private static final String PARAMS = "params";
  private static final String RESULT = "result";
  private static final String ERROR = "error";
  private static final String CODE = "code";
  private static final String MESSAGE = "message";
  private static final String DATA = "data";

  /** Members a request or notification holds in its fields; every other member is an extra. */
  private static final Set<String> CALL_MEMBERS = Set.of(JSONRPC, ID, METHOD, PARAMS);

  /** Members a response holds in its fields; every other member (even "params") is an extra. */
  private static final Set<String> RESPONSE_MEMBERS = Set.of(JSONRPC, ID, RESULT, ERROR);

  private static final byte[] UTF8_BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  /** Our words for Jackson's constraint violations, keyed by the start of Jackson's message. */
  private static final Map<String, String> CONSTRAINT_PROBLEMS =
      Map.of(
          "Document nesting depth", "nesting depth exceeds " + MAX_NESTING_DEPTH,
          "String value length", "string longer than " + MAX_STRING_LENGTH + " characters",
          "Number value length", "number longer than " + MAX_NUMBER_LENGTH + " characters",
          "Name length", "member name longer than " + MAX_NAME_LENGTH + " characters",
          "Document length", "payload larger than " + MAX_DOCUMENT_LENGTH + " bytes");

  private static final ObjectMapper MAPPER = createMapper();

  /** Reads one value and leaves the parser after it, so that trailing data is ours to report. */
  private static final ObjectReader TREE_READER =
      MAPPER.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private JsonRpcCodec() {}

  private static ObjectMapper createMapper() {
    StreamReadConstraints constraints =
        StreamReadConstraints.builder()
            .maxNestingDepth(MAX_NESTING_DEPTH)
            .maxStringLength(MAX_STRING_LENGTH)
            .maxDocumentLength(MAX_DOCUMENT_LENGTH)
            .maxNumberLength(MAX_NUMBER_LENGTH)
            .maxNameLength(MAX_NAME_LENGTH)
            .build();
    JsonFactory factory =
        JsonFactory.builder()
            .streamReadConstraints(constraints)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            // emoji and other non-BMP characters as UTF-8, not as escaped surrogate pairs
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .build();
    ObjectMapper mapper = new ObjectMapper(factory);
    // exact numbers: a double would round long decimals, and Jackson strips trailing zeros by
    // default
    mapper.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    mapper.configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);
    mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    return mapper;
  }

  /**
   * The shared mapper, configured with bounded stream read constraints, strict duplicate detection,
   * exact numbers and no trailing tokens. Thread-safe; do not reconfigure.
   */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** A new, empty object node: trees are mutable, so none is shared. */
  public static ObjectNode emptyObject() {
    return MAPPER.getNodeFactory().objectNode();
  }

  /** Parses a whole payload (an HTTP body or one stdio line). */
  public static ParsedPayload parse(byte[] payload) {
    JsonNode root;
    try {
      root = readTree(payload);
    } catch (JsonRpcException e) {
      return new ParsedPayload.Rejected(JsonRpcResponse.failure(null, e.error()));
    }
    if (root.isArray()) {
      return parseBatch(root);
    }
    if (!root.isObject()) {
      return invalidPayload("expected an object or an array, got " + typeOf(root));
    }
    try {
      return new ParsedPayload.Single(read(root));
    } catch (JsonRpcException e) {
      return new ParsedPayload.Rejected(errorResponse(e));
    }
  }

  public static ParsedPayload parse(String payload) {
    return parse(payload.getBytes(StandardCharsets.UTF_8));
  }

  private static ParsedPayload parseBatch(JsonNode batch) {
    if (batch.isEmpty()) {
      return invalidPayload("empty batch");
    }
    List<ParsedPayload.Element> elements = new ArrayList<>(batch.size());
    for (JsonNode element : batch) {
      try {
        elements.add(new ParsedPayload.Element(read(element), null));
      } catch (JsonRpcException e) {
        elements.add(new ParsedPayload.Element(null, errorResponse(e)));
      }
    }
    return new ParsedPayload.Batch(elements);
  }

  private static ParsedPayload invalidPayload(String problem) {
    return new ParsedPayload.Rejected(JsonRpcResponse.failure(null, invalidRequest(problem)));
  }

  private static JsonRpcResponse errorResponse(JsonRpcException e) {
    return JsonRpcResponse.failure(e.id(), e.error());
  }

  /** One JSON value spanning the whole payload, or a -32700 saying why not. */
  private static JsonNode readTree(byte[] payload) throws JsonRpcException {
    if (startsWithBom(payload)) {
      throw parseError("UTF-8 byte order mark not allowed");
    }
    try (JsonParser parser = MAPPER.createParser(payload)) {
      if (parser.nextToken() == null) {
        throw parseError("empty payload");
      }
      JsonNode root = TREE_READER.readTree(parser);
      if (hasTrailingData(parser)) {
        throw parseError("trailing data after the JSON value");
      }
      return root;
    } catch (JsonProcessingException e) {
      throw parseError(describe(e));
    } catch (IOException e) {
      // a byte array cannot fail to read; this is only here for the checked signature
      throw parseError(e.getMessage());
    }
  }

  private static boolean startsWithBom(byte[] payload) {
    return payload.length >= UTF8_BOM.length
        && payload[0] == UTF8_BOM[0]
        && payload[1] == UTF8_BOM[1]
        && payload[2] == UTF8_BOM[2];
  }

  private static boolean hasTrailingData(JsonParser parser) {
    try {
      return parser.nextToken() != null;
    } catch (IOException e) {
      return true; // whatever follows does not even tokenize
    }
  }

  private static String describe(JsonProcessingException e) {
    String original = e.getOriginalMessage();
    // Jackson reports some truncations (inside arrays) as plain parse errors
    if (e instanceof JsonEOFException || original.startsWith("Unexpected end-of-input")) {
      return "unexpected end of input";
    }
    if (e instanceof StreamConstraintsException) {
      for (Map.Entry<String, String> constraint : CONSTRAINT_PROBLEMS.entrySet()) {
        if (original.startsWith(constraint.getKey())) {
          return constraint.getValue();
        }
      }
      return original;
    }
    if (original.startsWith("Duplicate field '") && original.endsWith("'")) {
      String name = original.substring("Duplicate field '".length(), original.length() - 1);
      return "duplicate member \"" + name + "\"";
    }
    JsonLocation location = e.getLocation();
    return location == null
        ? original
        : original + " at line " + location.getLineNr() + ", column " + location.getColumnNr();
  }

  /** Reads one already-parsed JSON value as a message. */
  public static JsonRpcMessage read(JsonNode node) throws JsonRpcException {
    if (!node.isObject()) {
      throw invalid(null, "expected an object, got " + typeOf(node));
    }
    JsonNode id = node.get(ID);
    if (id != null && !isValidId(id) && !id.isNull()) {
      throw invalid(null, "\"id\" must be a string or a number, got " + typeOf(id));
    }
    JsonNode version = node.get(JSONRPC);
    if (version == null) {
      throw invalid(id, "missing \"jsonrpc\"");
    }
    if (!version.isTextual() || !JsonRpcMessage.VERSION.equals(version.textValue())) {
      throw invalid(id, "\"jsonrpc\" must be \"2.0\"");
    }
    return node.has(METHOD) ? readCall(node, id) : readResponse(node, id);
  }

  private static JsonRpcMessage readCall(JsonNode node, JsonNode id) throws JsonRpcException {
    if (node.has(RESULT) || node.has(ERROR)) {
      throw invalid(id, "has both \"method\" and \"" + (node.has(RESULT) ? RESULT : ERROR) + "\"");
    }
    JsonNode method = node.get(METHOD);
    if (!method.isTextual()) {
      throw invalid(id, "\"method\" must be a string, got " + typeOf(method));
    }
    if (method.textValue().isEmpty()) {
      throw invalid(id, "\"method\" must not be empty");
    }
    JsonNode params = node.get(PARAMS);
    if (params != null && !params.isObject() && !params.isArray()) {
      throw invalid(id, "\"params\" must be an object or an array, got " + typeOf(params));
    }
    if (id == null) {
      return new JsonRpcNotification(method.textValue(), params, extras(node, CALL_MEMBERS));
    }
    if (id.isNull()) {
      throw invalid(id, "\"id\" must be a string or a number, got null");
    }
    return new JsonRpcRequest(id, method.textValue(), params, extras(node, CALL_MEMBERS));
  }

  private static JsonRpcMessage readResponse(JsonNode node, JsonNode id) throws JsonRpcException {
    JsonNode result = node.get(RESULT);
    JsonNode error = node.get(ERROR);
    if (result == null && error == null) {
      throw invalid(id, "no \"method\", \"result\" or \"error\"");
    }
    if (result != null && error != null) {
      throw invalid(id, "has both \"result\" and \"error\"");
    }
    if (id == null) {
      throw invalid(null, "a response must have an \"id\"");
    }
    if (result != null) {
      if (id.isNull()) {
        throw invalid(id, "\"id\" may be null only in an error response");
      }
      return new JsonRpcResponse(id, result, null, extras(node, RESPONSE_MEMBERS));
    }
    return new JsonRpcResponse(id, null, readError(error, id), extras(node, RESPONSE_MEMBERS));
  }

  private static JsonRpcError readError(JsonNode error, JsonNode id) throws JsonRpcException {
    if (!error.isObject()) {
      throw invalid(id, "\"error\" must be an object, got " + typeOf(error));
    }
    JsonNode code = error.get(CODE);
    if (code == null) {
      throw invalid(id, "missing \"error.code\"");
    }
    if (!code.isIntegralNumber()) {
      throw invalid(id, "\"error.code\" must be an integer, got " + typeOf(code));
    }
    if (!code.canConvertToInt()) {
      throw invalid(id, "\"error.code\" must fit in 32 bits");
    }
    JsonNode message = error.get(MESSAGE);
    if (message == null) {
      throw invalid(id, "missing \"error.message\"");
    }
    if (!message.isTextual()) {
      throw invalid(id, "\"error.message\" must be a string, got " + typeOf(message));
    }
    return new JsonRpcError(code.intValue(), message.textValue(), error.get(DATA));
  }

  private static boolean isValidId(JsonNode id) {
    return id.isTextual() || id.isNumber();
  }

  private static ObjectNode extras(JsonNode node, Set<String> known) {
    ObjectNode extras = emptyObject();
    copyMembersExcept(node, known, extras);
    return extras;
  }

  /**
   * Copies members in order, skipping the named ones (so extras never overwrite what the model
   * owns).
   */
  private static void copyMembersExcept(JsonNode from, Set<String> skipped, ObjectNode to) {
    for (Map.Entry<String, JsonNode> member : from.properties()) {
      if (!skipped.contains(member.getKey())) {
        to.set(member.getKey(), member.getValue());
      }
    }
  }

  /** The JSON type of a value: object, array, string, number, boolean or null. */
  private static String typeOf(JsonNode node) {
    return node.getNodeType().name().toLowerCase(Locale.ROOT);
  }

  private static JsonRpcException parseError(String problem) {
    return new JsonRpcException(new JsonRpcError(PARSE_ERROR, "Parse error: " + problem), null);
  }

  private static JsonRpcError invalidRequest(String problem) {
    return new JsonRpcError(INVALID_REQUEST, "Invalid Request: " + problem);
  }

  private static JsonRpcException invalid(JsonNode id, String problem) {
    return new JsonRpcException(invalidRequest(problem), id);
  }

  /** The wire form: {"jsonrpc":"2.0", id?, method?, params?, result?, error?, ...extras}. */
  public static ObjectNode toJson(JsonRpcMessage message) {
    ObjectNode json = emptyObject();
    json.put(JSONRPC, JsonRpcMessage.VERSION);
    Set<String> owned = message instanceof JsonRpcResponse ? RESPONSE_MEMBERS : CALL_MEMBERS;
    if (message instanceof JsonRpcRequest request) {
      json.set(ID, request.id());
      json.put(METHOD, request.method());
      putIfPresent(json, PARAMS, request.params());
    } else if (message instanceof JsonRpcNotification notification) {
      json.put(METHOD, notification.method());
      putIfPresent(json, PARAMS, notification.params());
    } else if (message instanceof JsonRpcResponse response) {
      json.set(ID, response.id());
      if (response.isError()) {
        json.set(ERROR, toJson(response.error()));
      } else {
        json.set(RESULT, response.result());
      }
    }
    copyMembersExcept(message.extras(), owned, json);
    return json;
  }

  private static ObjectNode toJson(JsonRpcError error) {
    ObjectNode json = emptyObject();
    json.put(CODE, error.code());
    json.put(MESSAGE, error.message());
    putIfPresent(json, DATA, error.data());
    return json;
  }

  private static void putIfPresent(ObjectNode json, String name, JsonNode value) {
    if (value != null) {
      json.set(name, value);
    }
  }

  /** Compact UTF-8 bytes of {@link #toJson}, one line (no raw newlines), as stdio framing needs. */
  public static byte[] toBytes(JsonRpcMessage message) {
    try {
      return MAPPER.writeValueAsBytes(toJson(message));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static String toString(JsonRpcMessage message) {
    try {
      return MAPPER.writeValueAsString(toJson(message));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
