package dev.mcpsupervisor.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Tool parameters mirrored into HTTP headers (MCP 2026-07-28, SEP-2243): a property of a tool's
 * {@code inputSchema} that carries {@code "x-mcp-header": "Region"} travels, on a tools/call, both
 * in the body and in {@code Mcp-Param-Region}, so that intermediaries can route on it without
 * reading the body. Here: which parameters a schema declares, how a header value is encoded and
 * decoded (as is when plain visible ASCII, else {@code =?base64?...?=}), and whether a request's
 * headers say what its body says. No HTTP library: headers are read through a function.
 */
public final class ParamHeaders {

  public static final String EXTENSION = "x-mcp-header";
  public static final String HEADER_PREFIX = "Mcp-Param-";

  private static final String BASE64_PREFIX = "=?base64?";
  private static final String BASE64_SUFFIX = "?=";

  /** RFC 9110 token: {@code 1*tchar}. */
  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

  /** Strict Base64 (standard alphabet, padded): the lenient JDK decoder takes missing padding. */
  private static final Pattern BASE64 =
      Pattern.compile("(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?");

  private static final Set<String> PRIMITIVE_TYPES = Set.of("string", "integer", "boolean");

  /** Keywords whose values are data, not schemas: an x-mcp-header inside them declares nothing. */
  private static final Set<String> DATA_KEYWORDS = Set.of("enum", "const", "default", "examples");

  private ParamHeaders() {}

  /** One mirrored parameter: the chain of property names leading to it, and its header suffix. */
  public record Declaration(List<String> path, String name) {

    public Declaration {
      path = List.copyOf(path);
    }

    public String header() {
      return HEADER_PREFIX + name;
    }

    /** The argument at the declared path; null when absent or JSON null. */
    JsonNode valueIn(JsonNode arguments) {
      JsonNode node = arguments;
      for (String step : path) {
        node = node == null || !node.isObject() ? null : node.get(step);
      }
      return node == null || node.isNull() ? null : node;
    }
  }

  /**
   * A tool's declarations, or why they break the extension's rules (then a client leaves the tool
   * out, and nothing the headers say can be checked).
   *
   * @param invalid null when valid
   */
  public record Declarations(List<Declaration> headers, String invalid) {

    public Declarations {
      headers = List.copyOf(headers);
    }

    public boolean isValid() {
      return invalid == null;
    }
  }

  /** A header value decoded: the value, or why it cannot be one ({@code value} then null). */
  public record Decoded(String value, String invalid) {}

  /**
   * The parameters an {@code inputSchema} mirrors into headers. Only properties reached from the
   * root through {@code properties} alone may be mirrored, with a primitive type (string, integer,
   * boolean), under a token name unique regardless of case; an {@code x-mcp-header} anywhere else
   * makes the whole definition invalid.
   */
  public static Declarations declarations(JsonNode inputSchema) {
    List<Declaration> found = new ArrayList<>();
    Set<String> names = new HashSet<>();
    String invalid = reachable(inputSchema, new ArrayList<>(), found, names);
    if (invalid == null
        && inputSchema != null
        && annotationsAnywhere(inputSchema) != found.size()) {
      invalid = EXTENSION + " is only allowed on properties reached through \"properties\" alone";
    }
    return new Declarations(invalid == null ? found : List.of(), invalid);
  }

  private static String reachable(
      JsonNode schema, List<String> path, List<Declaration> found, Set<String> names) {
    JsonNode properties = schema == null ? null : schema.get("properties");
    if (properties == null || !properties.isObject()) {
      return null;
    }
    for (Map.Entry<String, JsonNode> property : properties.properties()) {
      JsonNode definition = property.getValue();
      if (!definition.isObject()) {
        continue;
      }
      path.add(property.getKey());
      JsonNode annotation = definition.get(EXTENSION);
      if (annotation != null) {
        String problem = declarationProblem(annotation, definition.path("type"), names);
        if (problem != null) {
          return "property " + String.join(".", path) + ": " + problem;
        }
        found.add(new Declaration(path, annotation.textValue()));
      }
      String nested = reachable(definition, path, found, names);
      if (nested != null) {
        return nested;
      }
      path.remove(path.size() - 1);
    }
    return null;
  }

  private static String declarationProblem(JsonNode annotation, JsonNode type, Set<String> names) {
    if (!annotation.isTextual() || !TOKEN.matcher(annotation.textValue()).matches()) {
      return EXTENSION + " must be a non-empty HTTP token, not " + annotation;
    }
    if (!names.add(annotation.textValue().toLowerCase(Locale.ROOT))) {
      return EXTENSION + " \"" + annotation.textValue() + "\" is declared twice";
    }
    if (!type.isTextual() || !PRIMITIVE_TYPES.contains(type.textValue())) {
      return EXTENSION + " needs type string, integer or boolean, not " + type;
    }
    return null;
  }

  /** Every {@code x-mcp-header} annotation in the schema, wherever it is. */
  private static int annotationsAnywhere(JsonNode node) {
    int count = 0;
    if (node.isArray()) {
      for (JsonNode element : node) {
        count += annotationsAnywhere(element);
      }
    } else if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        if (EXTENSION.equals(field.getKey()) && !field.getValue().isObject()) {
          count++; // an object under that key is a property named so, not an annotation
        } else if (!DATA_KEYWORDS.contains(field.getKey())) {
          count += annotationsAnywhere(field.getValue());
        }
      }
    }
    return count;
  }

  /**
   * A value as a header carries it: as it is when it is plain visible ASCII without surrounding
   * whitespace, else (and when it looks like an encoded value itself) {@code =?base64?...?=}.
   */
  public static String encode(String value) {
    boolean plain =
        !value.isEmpty()
            && value.strip().length() == value.length()
            && !isSentinel(value)
            && value.chars().allMatch(ParamHeaders::isFieldChar);
    return plain
        ? value
        : BASE64_PREFIX
            + Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8))
            + BASE64_SUFFIX;
  }

  /**
   * What a header value says: {@code =?base64?...?=} decoded (strict Base64 of UTF-8), anything
   * else literally, trimmed; invalid when the Base64 or its UTF-8 is broken or a literal holds
   * characters a header field must not.
   */
  public static Decoded decode(String headerValue) {
    String value = headerValue.strip();
    if (!isSentinel(value)) {
      return value.chars().allMatch(ParamHeaders::isFieldChar)
          ? new Decoded(value, null)
          : new Decoded(null, "it holds characters a header value must not");
    }
    String encoded =
        value.substring(BASE64_PREFIX.length(), value.length() - BASE64_SUFFIX.length());
    if (!BASE64.matcher(encoded).matches()) {
      return new Decoded(null, "its Base64 is malformed (alphabet or padding)");
    }
    try {
      return new Decoded(
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(Base64.getDecoder().decode(encoded)))
              .toString(),
          null);
    } catch (CharacterCodingException e) {
      return new Decoded(null, "its Base64 is not UTF-8 text");
    }
  }

  /**
   * Why a tools/call's headers do not say what its arguments say, if they do not: a declared
   * parameter present in the body needs its header with an equal value (integers compared as
   * numbers, booleans as {@code true}/{@code false}); a header for a parameter the body lacks, or
   * one that does not decode, is a mismatch too.
   *
   * @param header a header's value by name (case-insensitive), or null when absent
   */
  public static Optional<String> mismatch(
      Declarations declarations, JsonNode arguments, Function<String, String> header) {
    if (!declarations.isValid()) {
      return Optional.of(
          "the tool's " + EXTENSION + " declarations are invalid: " + declarations.invalid());
    }
    for (Declaration declaration : declarations.headers()) {
      JsonNode body = declaration.valueIn(arguments);
      String sent = header.apply(declaration.header());
      String where = "arguments." + String.join(".", declaration.path());
      if (sent == null) {
        if (body != null) {
          return Optional.of(declaration.header() + " is missing, the body has " + where);
        }
        continue;
      }
      Decoded decoded = decode(sent);
      if (decoded.invalid() != null) {
        return Optional.of(declaration.header() + " is invalid: " + decoded.invalid());
      }
      if (body == null) {
        return Optional.of(declaration.header() + " is sent, the body has no " + where);
      }
      if (!sameValue(decoded.value(), body)) {
        return Optional.of(
            declaration.header()
                + " is \""
                + decoded.value()
                + "\", the body's "
                + where
                + " is "
                + body);
      }
    }
    return Optional.empty();
  }

  /**
   * The headers a client sends for these arguments: one per declared parameter the arguments hold,
   * encoded; none for a tool whose declarations are invalid.
   */
  public static Map<String, String> headersFor(Declarations declarations, JsonNode arguments) {
    Map<String, String> headers = new TreeMap<>();
    if (declarations.isValid()) {
      for (Declaration declaration : declarations.headers()) {
        JsonNode value = declaration.valueIn(arguments);
        if (value != null && value.isValueNode()) {
          headers.put(declaration.header(), encode(value.asText()));
        }
      }
    }
    return headers;
  }

  private static boolean sameValue(String header, JsonNode body) {
    if (body.isTextual()) {
      return header.equals(body.textValue());
    }
    if (body.isBoolean()) {
      return header.equals(Boolean.toString(body.booleanValue()));
    }
    if (body.isNumber()) {
      try {
        return new BigDecimal(header).compareTo(body.decimalValue()) == 0;
      } catch (NumberFormatException e) {
        return false;
      }
    }
    return false; // an object or array cannot be mirrored
  }

  private static boolean isSentinel(String value) {
    return value.length() >= BASE64_PREFIX.length() + BASE64_SUFFIX.length()
        && value.startsWith(BASE64_PREFIX)
        && value.endsWith(BASE64_SUFFIX);
  }

  /** Visible ASCII, space and tab: what a header field value may hold (RFC 9110). */
  private static boolean isFieldChar(int c) {
    return (c >= 0x20 && c <= 0x7E) || c == '\t';
  }
}
