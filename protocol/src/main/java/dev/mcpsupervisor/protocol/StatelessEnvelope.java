package dev.mcpsupervisor.protocol;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.HEADER_MISMATCH;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.METHOD_NOT_FOUND;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.RESOURCE_NOT_FOUND;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.UNSUPPORTED_PROTOCOL_VERSION;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The wire rules of MCP 2026-07-28 requests, which carry no session: which POST is one, what it
 * must carry ({@code _meta} and the headers that mirror it, checked in the order the spec gives),
 * and what its results must carry ({@code resultType}, cache hints). No HTTP library: headers are
 * read through a function.
 */
public final class StatelessEnvelope {

  private StatelessEnvelope() {}

  public static final String META = "_meta";
  public static final String META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
  public static final String META_CLIENT_CAPABILITIES =
      "io.modelcontextprotocol/clientCapabilities";
  public static final String META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
  public static final String META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
  public static final String META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";

  public static final String PROTOCOL_VERSION_HEADER = "MCP-Protocol-Version";
  public static final String METHOD_HEADER = "Mcp-Method";
  public static final String NAME_HEADER = "Mcp-Name";

  /** What a stateless request may ask the gateway; the rest (initialize, ping, ...) is 404. */
  public static final Set<String> METHODS =
      Set.of(
          McpMethods.SERVER_DISCOVER,
          McpMethods.TOOLS_LIST,
          McpMethods.TOOLS_CALL,
          McpMethods.PROMPTS_LIST,
          McpMethods.PROMPTS_GET,
          McpMethods.RESOURCES_LIST,
          McpMethods.RESOURCES_TEMPLATES_LIST,
          McpMethods.RESOURCES_READ,
          McpMethods.COMPLETION_COMPLETE,
          McpMethods.SUBSCRIPTIONS_LISTEN);

  /** Results a client may cache: they carry {@code ttlMs} and {@code cacheScope}. */
  private static final Set<String> CACHEABLE =
      Set.of(
          McpMethods.SERVER_DISCOVER,
          McpMethods.TOOLS_LIST,
          McpMethods.PROMPTS_LIST,
          McpMethods.RESOURCES_LIST,
          McpMethods.RESOURCES_TEMPLATES_LIST,
          McpMethods.RESOURCES_READ);

  /** What the request says about its client, from {@code params._meta}. */
  public record Meta(
      String protocolVersion, JsonNode clientCapabilities, JsonNode clientInfo, String logLevel) {

    public static Meta of(JsonRpcRequest request) {
      JsonNode meta = metaOf(request);
      return new Meta(
          meta.path(META_PROTOCOL_VERSION).asText(null),
          meta.path(META_CLIENT_CAPABILITIES).isObject()
              ? meta.get(META_CLIENT_CAPABILITIES)
              : JsonRpcCodec.emptyObject(),
          meta.path(META_CLIENT_INFO).isObject() ? meta.get(META_CLIENT_INFO) : null,
          meta.path(META_LOG_LEVEL).asText(null));
    }
  }

  /** A request refused before it reaches any server: the HTTP status and the error to send. */
  public record Rejection(int httpStatus, JsonRpcResponse response) {}

  /**
   * Whether a POST without a session speaks 2026-07-28: its MCP-Protocol-Version header names no
   * session-era version, and it has one, or its {@code _meta} names a protocol version. A
   * session-era client's initialize has neither, so it stays what it is.
   *
   * @param versionHeader the MCP-Protocol-Version header, or null
   */
  public static boolean isStateless(String versionHeader, JsonRpcRequest request) {
    if (versionHeader != null) {
      return !ProtocolVersions.isSupported(versionHeader.trim());
    }
    return metaOf(request).has(META_PROTOCOL_VERSION);
  }

  /**
   * Checks a stateless request in the spec's order: {@code _meta} complete (400, -32602), the
   * version header equal to it (400, -32020), the version served (400, -32022), the Mcp-Method and
   * Mcp-Name headers equal to the body (400, -32020), the method one a stateless client may call
   * (404, -32601).
   *
   * @param header a header's value by name (case-insensitive), or null when absent
   */
  public static Optional<Rejection> check(JsonRpcRequest request, Function<String, String> header) {
    JsonNode meta = metaOf(request);
    if (!meta.has(META_PROTOCOL_VERSION) || !meta.path(META_CLIENT_CAPABILITIES).isObject()) {
      return reject(
          request,
          400,
          INVALID_PARAMS,
          "Invalid params: params._meta must carry "
              + META_PROTOCOL_VERSION
              + " and "
              + META_CLIENT_CAPABILITIES,
          null);
    }
    String version = meta.path(META_PROTOCOL_VERSION).asText("");
    String versionHeader = trimmed(header.apply(PROTOCOL_VERSION_HEADER));
    if (!version.equals(versionHeader)) {
      return reject(
          request,
          400,
          HEADER_MISMATCH,
          "Header mismatch: "
              + PROTOCOL_VERSION_HEADER
              + " is "
              + (versionHeader == null ? "missing" : "\"" + versionHeader + "\"")
              + ", params._meta says \""
              + version
              + "\"",
          null);
    }
    if (!ProtocolVersions.STATELESS.contains(version)) {
      ObjectNode data = JsonRpcCodec.emptyObject();
      ProtocolVersions.STATELESS.forEach(data.putArray("supported")::add);
      data.put("requested", version);
      return reject(
          request,
          400,
          UNSUPPORTED_PROTOCOL_VERSION,
          "Unsupported protocol version: " + version,
          data);
    }
    Optional<Rejection> headers = checkMethodAndName(request, header);
    if (headers.isPresent()) {
      return headers;
    }
    if (!METHODS.contains(request.method())) {
      return reject(
          request,
          404,
          METHOD_NOT_FOUND,
          "Method not found: " + request.method() + " (not part of MCP " + version + ")",
          null);
    }
    return Optional.empty();
  }

  private static Optional<Rejection> checkMethodAndName(
      JsonRpcRequest request, Function<String, String> header) {
    String methodHeader = trimmed(header.apply(METHOD_HEADER));
    if (!request.method().equals(methodHeader)) {
      return reject(
          request,
          400,
          HEADER_MISMATCH,
          "Header mismatch: "
              + METHOD_HEADER
              + (methodHeader == null ? " is missing" : " is \"" + methodHeader + "\"")
              + ", the body's method is \""
              + request.method()
              + "\"",
          null);
    }
    String named = nameOf(request);
    if (named == null) {
      return Optional.empty();
    }
    String nameHeader = trimmed(header.apply(NAME_HEADER));
    // a name that is not plain ASCII comes Base64-encoded, as Mcp-Param values do
    ParamHeaders.Decoded decoded = nameHeader == null ? null : ParamHeaders.decode(nameHeader);
    if (decoded != null && decoded.invalid() != null) {
      return reject(
          request,
          400,
          HEADER_MISMATCH,
          "Header mismatch: " + NAME_HEADER + " is invalid: " + decoded.invalid(),
          null);
    }
    if (decoded == null || !named.equals(decoded.value())) {
      return reject(
          request,
          400,
          HEADER_MISMATCH,
          "Header mismatch: "
              + NAME_HEADER
              + (nameHeader == null ? " is missing" : " is \"" + nameHeader + "\"")
              + ", the body names \""
              + named
              + "\"",
          null);
    }
    return Optional.empty();
  }

  /** What Mcp-Name must repeat: a tool's or prompt's name, a resource's URI; null if nothing. */
  public static String nameOf(JsonRpcRequest request) {
    return nameOf(request.method(), request.params());
  }

  /** {@link #nameOf(JsonRpcRequest)} of a request's method and params (null: none). */
  public static String nameOf(String method, JsonNode requestParams) {
    JsonNode params = requestParams == null ? JsonRpcCodec.emptyObject() : requestParams;
    return switch (method) {
      case McpMethods.TOOLS_CALL, McpMethods.PROMPTS_GET -> params.path("name").asText(null);
      case McpMethods.RESOURCES_READ -> params.path("uri").asText(null);
      default -> null;
    };
  }

  /**
   * A session-era answer made fit for a stateless client: every result says {@code resultType}
   * (complete unless it says otherwise), cacheable ones carry {@code ttlMs} and {@code cacheScope}
   * (unless the server set them; {@code ttlMs} is the remaining lifetime of the supervisor's cached
   * list, 0 when nothing cached it, and never negative), and "resource not found" is the revision's
   * -32602 with the URI.
   *
   * @param cacheScope {@code private} when answers depend on who asks, else {@code public}
   */
  public static JsonRpcResponse forStatelessClient(
      JsonRpcRequest request, JsonRpcResponse response, String cacheScope) {
    if (response.isError()) {
      JsonRpcError error = response.error();
      if (error.code() == RESOURCE_NOT_FOUND
          && McpMethods.RESOURCES_READ.equals(request.method())) {
        ObjectNode data =
            error.data() instanceof ObjectNode given
                ? given.deepCopy()
                : JsonRpcCodec.emptyObject();
        if (!data.has("uri") && nameOf(request) != null) {
          data.put("uri", nameOf(request));
        }
        return JsonRpcResponse.failure(
            response.id(), new JsonRpcError(INVALID_PARAMS, error.message(), data));
      }
      return response;
    }
    if (!(response.result() instanceof ObjectNode given)) {
      return response;
    }
    // a shallow copy: the top level gains fields, nothing below it is touched
    ObjectNode result = JsonRpcCodec.emptyObject().setAll(given);
    if (!result.has("resultType")) {
      result.put("resultType", "complete");
    }
    if (CACHEABLE.contains(request.method())) {
      JsonNode ttl = result.get("ttlMs");
      if (ttl == null || !ttl.canConvertToLong() || ttl.asLong() < 0) {
        result.put("ttlMs", 0);
      }
      if (!result.has("cacheScope")) {
        result.put("cacheScope", cacheScope);
      }
    }
    return JsonRpcResponse.success(response.id(), result);
  }

  /**
   * An answer for a session-era client: without the cache hints of the stateless revision, which
   * the supervisor adds to the lists it caches and which that client's protocol does not know.
   */
  public static JsonRpcResponse forSessionClient(JsonRpcRequest request, JsonRpcResponse response) {
    if (response.isError()
        || !CACHEABLE.contains(request.method())
        || !(response.result() instanceof ObjectNode given)
        || !(given.has("ttlMs") || given.has("cacheScope"))) {
      return response;
    }
    ObjectNode result = JsonRpcCodec.emptyObject().setAll(given);
    result.remove("ttlMs");
    result.remove("cacheScope");
    return JsonRpcResponse.success(response.id(), result);
  }

  /**
   * A server/discover result from what an initialize answered: every version served, the
   * capabilities (resources.subscribe as a server announces it: the gateway subscribes for a
   * subscriptions/listen stream's resourceSubscriptions), the server's identity in {@code _meta}.
   */
  public static ObjectNode discoverResult(JsonNode initializeResult) {
    ObjectNode result = JsonRpcCodec.emptyObject();
    ProtocolVersions.ALL.forEach(result.putArray("supportedVersions")::add);
    ObjectNode capabilities =
        initializeResult.path("capabilities") instanceof ObjectNode given
            ? given.deepCopy()
            : JsonRpcCodec.emptyObject();
    result.set("capabilities", capabilities);
    if (initializeResult.hasNonNull("instructions")) {
      result.set("instructions", initializeResult.get("instructions"));
    }
    if (initializeResult.has("serverInfo")) {
      result.putObject(META).set(META_SERVER_INFO, initializeResult.get("serverInfo"));
    }
    return result;
  }

  /**
   * {@code params} asking for logs at {@code logLevel} the way a 2026-07-28 request does, in {@code
   * _meta} (a copy; what the caller set there stays); {@code params} itself when the level is null.
   */
  public static JsonNode withLogLevel(JsonNode params, String logLevel) {
    if (logLevel == null) {
      return params;
    }
    ObjectNode copy =
        params instanceof ObjectNode given ? given.deepCopy() : JsonRpcCodec.emptyObject();
    ObjectNode meta = copy.get(META) instanceof ObjectNode given ? given : copy.putObject(META);
    meta.put(META_LOG_LEVEL, logLevel);
    return copy;
  }

  private static JsonNode metaOf(JsonRpcRequest request) {
    return request.params() == null
        ? JsonRpcCodec.emptyObject()
        : request.params().path(META).isObject()
            ? request.params().get(META)
            : JsonRpcCodec.emptyObject();
  }

  private static String trimmed(String value) {
    return value == null ? null : value.trim();
  }

  private static Optional<Rejection> reject(
      JsonRpcRequest request, int status, int code, String message, JsonNode data) {
    return Optional.of(
        new Rejection(
            status, JsonRpcResponse.failure(request.id(), new JsonRpcError(code, message, data))));
  }
}
