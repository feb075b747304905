package dev.mcpsupervisor.protocol;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INTERNAL_ERROR;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a client's message must be before it goes anywhere, in both eras: the JSON-RPC envelope MCP
 * narrows (an id that is a string or a safe integer, {@code params} an object, {@code _meta} an
 * object whose keys follow the spec's naming rules) and the fields each known method needs, with
 * their JSON types ({@code tools/call}'s {@code name} a string, {@code resources/read}'s {@code
 * uri}, {@code completion/complete}'s {@code ref} and {@code argument}, 2026-07-28's {@code
 * inputResponses} and {@code requestState}, ...). A violation names the field and carries the error
 * to answer: -32600 (Invalid Request) for the envelope of a message, -32602 (Invalid params) for
 * what its params hold.
 *
 * <p>How deep: the envelope and every field of a known method the spec's schema requires or types
 * at its top level (and one level down where a method's routing reads it: {@code ref}, {@code
 * argument}, an input response's discriminating field). Values the gateway passes through without
 * reading (a tool's {@code arguments} against its input schema, the contents of a sampling message)
 * are the upstream's to check. Unknown methods get the envelope rules only; unknown fields are
 * kept. No thread, no state: the rules are plain functions of the message.
 */
public final class EnvelopeRules {

  /**
   * JavaScript's Number.MAX_SAFE_INTEGER: ids and tokens beyond it lose their value in JS peers.
   */
  public static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

  private static final BigDecimal MAX_SAFE = BigDecimal.valueOf(MAX_SAFE_INTEGER);

  /** The version that introduced the {@code _meta} key naming rules. */
  private static final String META_KEY_RULES_SINCE = ProtocolVersions.V2025_06_18;

  private static final String VERSION_FIELD = metaField(StatelessEnvelope.META_PROTOCOL_VERSION);
  private static final String CAPABILITIES_FIELD =
      metaField(StatelessEnvelope.META_CLIENT_CAPABILITIES);
  private static final String CLIENT_INFO_FIELD = metaField(StatelessEnvelope.META_CLIENT_INFO);
  private static final String CLIENT_NAME_FIELD = CLIENT_INFO_FIELD + ".name";
  private static final String CLIENT_VERSION_FIELD = CLIENT_INFO_FIELD + ".version";
  private static final String LOG_LEVEL_FIELD = metaField(StatelessEnvelope.META_LOG_LEVEL);

  /** Keys the spec itself names: valid, and on nearly every 2026-07-28 request. */
  private static final Set<String> SPEC_META_KEYS =
      Set.of(
          "progressToken",
          StatelessEnvelope.META_PROTOCOL_VERSION,
          StatelessEnvelope.META_CLIENT_CAPABILITIES,
          StatelessEnvelope.META_CLIENT_INFO,
          StatelessEnvelope.META_LOG_LEVEL);

  private static final Set<String> REF_TYPES = Set.of("ref/prompt", "ref/resource");
  private static final Set<String> ELICIT_ACTIONS = Set.of("accept", "decline", "cancel");
  private static final Set<String> ROLES = Set.of("user", "assistant");

  private EnvelopeRules() {}

  /**
   * Which rules apply: the era (a 2026-07-28 request has {@code inputResponses} and {@code
   * requestState}, and other methods), and whether {@code _meta} keys must follow the naming rules
   * (from 2025-06-18 on; older clients are not held to them).
   */
  public record Rules(boolean stateless, boolean metaKeyNames) {

    /** The rules of a client speaking {@code version} (null or unknown: a lenient session era). */
    public static Rules of(String version) {
      if (version == null) {
        return new Rules(false, false);
      }
      String trimmed = version.trim();
      boolean stateless = ProtocolVersions.STATELESS.contains(trimmed);
      boolean known = stateless || ProtocolVersions.isSupported(trimmed);
      return new Rules(stateless, known && trimmed.compareTo(META_KEY_RULES_SINCE) >= 0);
    }
  }

  /**
   * Why a message is refused: the error code, the field at fault (a path such as {@code
   * params._meta} or {@code params.inputResponses["elicitation-1"]}) and what is wrong with it.
   */
  public record Violation(int code, String field, String problem) {

    /** The JSON-RPC error for the client, with {@code data.field}. */
    public JsonRpcError error() {
      ObjectNode data = JsonRpcCodec.emptyObject();
      data.put("field", field);
      String kind = code == INVALID_PARAMS ? "Invalid params: " : "Invalid Request: ";
      return new JsonRpcError(code, kind + field + " " + problem, data);
    }

    /** The answer to {@code message}: its id when it has a usable one, else null. */
    public JsonRpcResponse answerTo(JsonRpcMessage message) {
      JsonNode id = null;
      if (message instanceof JsonRpcRequest request) {
        id = request.id();
      }
      return JsonRpcResponse.failure(id, error());
    }
  }

  /** The violation of any message a client sends, or empty when it is well-formed. */
  public static Optional<Violation> check(JsonRpcMessage message, Rules rules) {
    Violation violation;
    if (message instanceof JsonRpcRequest request) {
      violation = requestViolation(request, rules);
    } else if (message instanceof JsonRpcNotification notification) {
      violation = notificationViolation(notification, rules);
    } else if (message instanceof JsonRpcResponse response) {
      violation = responseViolation(response, rules);
    } else {
      violation = null;
    }
    return Optional.ofNullable(violation);
  }

  /**
   * What goes upstream in place of a malformed answer to a server request, so that the server that
   * asked gets an error instead of nothing; null when the answer's id cannot be told (nothing would
   * match it).
   */
  public static JsonRpcResponse upstreamErrorFor(JsonRpcResponse malformed, Violation violation) {
    if (violation.field().equals("id")) {
      return null;
    }
    return JsonRpcResponse.failure(
        malformed.id(),
        new JsonRpcError(
            INTERNAL_ERROR,
            "Internal error: the client's answer was malformed ("
                + violation.field()
                + " "
                + violation.problem()
                + ")"));
  }

  // ------------------------------------------------------------------------------------ requests

  private static Violation requestViolation(JsonRpcRequest request, Rules rules) {
    Violation violation = idViolation(request.id(), "id");
    if (violation != null) {
      return violation;
    }
    JsonNode params = request.params();
    if (params == null) {
      return requiredParams(request.method(), rules);
    }
    if (!params.isObject()) {
      return new Violation(INVALID_PARAMS, "params", "must be an object, got " + typeOf(params));
    }
    violation = metaViolation(params.get(StatelessEnvelope.META), rules, true);
    if (violation == null && rules.stateless()) {
      violation = statelessViolation(params);
    }
    return violation != null ? violation : methodViolation(request.method(), params, rules);
  }

  /** A method whose params hold required fields needs params. */
  private static Violation requiredParams(String method, Rules rules) {
    String required = requiredField(method, rules);
    return required == null
        ? null
        : new Violation(INVALID_PARAMS, "params." + required, "is required");
  }

  private static String requiredField(String method, Rules rules) {
    return switch (method) {
      case McpMethods.TOOLS_CALL, McpMethods.PROMPTS_GET -> "name";
      case McpMethods.RESOURCES_READ -> "uri";
      case McpMethods.RESOURCES_SUBSCRIBE, McpMethods.RESOURCES_UNSUBSCRIBE ->
          rules.stateless() ? null : "uri";
      case McpMethods.COMPLETION_COMPLETE -> "ref";
      case McpMethods.LOGGING_SET_LEVEL -> rules.stateless() ? null : "level";
      case McpMethods.INITIALIZE -> rules.stateless() ? null : "protocolVersion";
      case McpMethods.SUBSCRIPTIONS_LISTEN -> rules.stateless() ? "notifications" : null;
      default -> null;
    };
  }

  /** The fields of a known method: present when required, of their JSON type when present. */
  private static Violation methodViolation(String method, JsonNode params, Rules rules) {
    return switch (method) {
      case McpMethods.TOOLS_CALL ->
          first(
              string(params, "name", true, "params.name"),
              object(params, "arguments", false, "params.arguments"));
      case McpMethods.PROMPTS_GET ->
          first(
              string(params, "name", true, "params.name"),
              stringMap(params, "arguments", false, "params.arguments"));
      case McpMethods.RESOURCES_READ -> string(params, "uri", true, "params.uri");
      case McpMethods.RESOURCES_SUBSCRIBE, McpMethods.RESOURCES_UNSUBSCRIBE ->
          rules.stateless() ? null : string(params, "uri", true, "params.uri");
      case McpMethods.TOOLS_LIST,
          McpMethods.PROMPTS_LIST,
          McpMethods.RESOURCES_LIST,
          McpMethods.RESOURCES_TEMPLATES_LIST ->
          string(params, "cursor", false, "params.cursor");
      case McpMethods.COMPLETION_COMPLETE -> completionViolation(params);
      case McpMethods.LOGGING_SET_LEVEL -> rules.stateless() ? null : levelViolation(params);
      case McpMethods.INITIALIZE -> rules.stateless() ? null : initializeViolation(params);
      case McpMethods.SUBSCRIPTIONS_LISTEN ->
          rules.stateless() ? listenViolation(params.get("notifications")) : null;
      default -> null;
    };
  }

  private static Violation completionViolation(JsonNode params) {
    Violation violation =
        first(
            object(params, "ref", true, "params.ref"),
            object(params, "argument", true, "params.argument"),
            object(params, "context", false, "params.context"));
    if (violation != null) {
      return violation;
    }
    JsonNode ref = params.get("ref");
    JsonNode type = ref.get("type");
    if (type == null || !type.isTextual() || !REF_TYPES.contains(type.textValue())) {
      return new Violation(
          INVALID_PARAMS,
          "params.ref.type",
          "must be \"ref/prompt\" or \"ref/resource\", got " + describe(type));
    }
    boolean prompt = type.textValue().equals("ref/prompt");
    JsonNode argument = params.get("argument");
    JsonNode context = params.get("context");
    return first(
        prompt
            ? string(ref, "name", true, "params.ref.name")
            : string(ref, "uri", true, "params.ref.uri"),
        string(argument, "name", true, "params.argument.name"),
        string(argument, "value", true, "params.argument.value"),
        context == null
            ? null
            : stringMap(context, "arguments", false, "params.context.arguments"));
  }

  private static Violation levelViolation(JsonNode params) {
    JsonNode level = params.get("level");
    if (level == null) {
      return new Violation(INVALID_PARAMS, "params.level", "is required");
    }
    if (!level.isTextual() || !LogLevels.isLevel(level.textValue())) {
      return new Violation(
          INVALID_PARAMS,
          "params.level",
          "must be one of " + LogLevels.ORDER + ", got " + describe(level));
    }
    return null;
  }

  private static Violation initializeViolation(JsonNode params) {
    Violation violation =
        first(
            string(params, "protocolVersion", true, "params.protocolVersion"),
            object(params, "capabilities", true, "params.capabilities"),
            object(params, "clientInfo", true, "params.clientInfo"));
    if (violation != null) {
      return violation;
    }
    JsonNode clientInfo = params.get("clientInfo");
    return first(
        string(clientInfo, "name", true, "params.clientInfo.name"),
        string(clientInfo, "version", true, "params.clientInfo.version"));
  }

  private static Violation listenViolation(JsonNode filter) {
    if (filter == null) {
      return new Violation(INVALID_PARAMS, "params.notifications", "is required");
    }
    if (!filter.isObject()) {
      return new Violation(
          INVALID_PARAMS, "params.notifications", "must be an object, got " + typeOf(filter));
    }
    for (String flag :
        new String[] {"toolsListChanged", "promptsListChanged", "resourcesListChanged"}) {
      JsonNode value = filter.get(flag);
      if (value != null && !value.isBoolean()) {
        return new Violation(
            INVALID_PARAMS,
            "params.notifications." + flag,
            "must be a boolean, got " + typeOf(value));
      }
    }
    JsonNode uris = filter.get("resourceSubscriptions");
    if (uris == null) {
      return null;
    }
    if (!uris.isArray()) {
      return new Violation(
          INVALID_PARAMS,
          "params.notifications.resourceSubscriptions",
          "must be an array of strings, got " + typeOf(uris));
    }
    for (int i = 0; i < uris.size(); i++) {
      if (!uris.get(i).isTextual()) {
        return new Violation(
            INVALID_PARAMS,
            "params.notifications.resourceSubscriptions[" + i + "]",
            "must be a string, got " + typeOf(uris.get(i)));
      }
    }
    return null;
  }

  /**
   * 2026-07-28: the request metadata's types (their presence is {@link StatelessEnvelope}'s to
   * check, in the spec's order), {@code inputResponses} and {@code requestState}.
   */
  private static Violation statelessViolation(JsonNode params) {
    JsonNode meta = params.get(StatelessEnvelope.META);
    if (meta != null) {
      Violation violation =
          first(
              string(meta, StatelessEnvelope.META_PROTOCOL_VERSION, false, VERSION_FIELD),
              object(meta, StatelessEnvelope.META_CLIENT_CAPABILITIES, false, CAPABILITIES_FIELD),
              object(meta, StatelessEnvelope.META_CLIENT_INFO, false, CLIENT_INFO_FIELD));
      if (violation != null) {
        return violation;
      }
      JsonNode clientInfo = meta.get(StatelessEnvelope.META_CLIENT_INFO);
      if (clientInfo != null) {
        violation =
            first(
                string(clientInfo, "name", true, CLIENT_NAME_FIELD),
                string(clientInfo, "version", true, CLIENT_VERSION_FIELD));
        if (violation != null) {
          return violation;
        }
      }
      JsonNode level = meta.get(StatelessEnvelope.META_LOG_LEVEL);
      if (level != null && (!level.isTextual() || !LogLevels.isLevel(level.textValue()))) {
        return new Violation(
            INVALID_PARAMS,
            LOG_LEVEL_FIELD,
            "must be one of " + LogLevels.ORDER + ", got " + describe(level));
      }
    }
    Violation violation = string(params, "requestState", false, "params.requestState");
    if (violation != null) {
      return violation;
    }
    JsonNode responses = params.get("inputResponses");
    if (responses == null) {
      return null;
    }
    if (!responses.isObject()) {
      return new Violation(
          INVALID_PARAMS, "params.inputResponses", "must be an object, got " + typeOf(responses));
    }
    for (Iterator<Map.Entry<String, JsonNode>> entries = responses.fields(); entries.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = entries.next();
      String problem = inputResponseProblem(entry.getValue());
      if (problem != null) {
        return new Violation(
            INVALID_PARAMS, "params.inputResponses[" + quoted(entry.getKey()) + "]", problem);
      }
    }
    return null;
  }

  /**
   * What is wrong with an input response: it must be an object, and when it is one of the results a
   * client gives a server's request (told by its {@code action}, {@code role} or {@code roots}),
   * that result well-formed (an elicitation's action, a sampling {@code role}, {@code content} and
   * {@code model}, a list of roots with URIs); null when it is fine. An object of no known kind
   * passes: the spec has servers ignore entries they do not recognize (and ask again for one they
   * need).
   */
  public static String inputResponseProblem(JsonNode response) {
    if (!response.isObject()) {
      return "must be an object (an elicitation, sampling or roots result), got "
          + typeOf(response);
    }
    JsonNode action = response.get("action");
    if (action != null) {
      if (!action.isTextual() || !ELICIT_ACTIONS.contains(action.textValue())) {
        return ".action must be \"accept\", \"decline\" or \"cancel\", got " + describe(action);
      }
      JsonNode content = response.get("content");
      return content == null || content.isObject()
          ? null
          : ".content must be an object, got " + typeOf(content);
    }
    JsonNode role = response.get("role");
    if (role != null) {
      if (!role.isTextual() || !ROLES.contains(role.textValue())) {
        return ".role must be \"user\" or \"assistant\", got " + describe(role);
      }
      JsonNode content = response.get("content");
      if (content == null || !(content.isObject() || content.isArray())) {
        return ".content must be an object or an array, got " + describe(content);
      }
      JsonNode model = response.get("model");
      return model != null && model.isTextual()
          ? null
          : ".model must be a string, got " + describe(model);
    }
    JsonNode roots = response.get("roots");
    if (roots != null) {
      if (!roots.isArray()) {
        return ".roots must be an array, got " + typeOf(roots);
      }
      for (int i = 0; i < roots.size(); i++) {
        if (!roots.get(i).path("uri").isTextual()) {
          return ".roots[" + i + "].uri must be a string";
        }
      }
      return null;
    }
    // an object of no known kind: an entry the server does not recognize, which it ignores
    return null;
  }

  // ------------------------------------------------------------------------------- notifications

  private static Violation notificationViolation(JsonRpcNotification notification, Rules rules) {
    JsonNode params = notification.params();
    String method = notification.method();
    boolean cancelled = McpMethods.NOTIFICATION_CANCELLED.equals(method);
    boolean progress = McpMethods.NOTIFICATION_PROGRESS.equals(method);
    if (params == null) {
      return cancelled
          ? new Violation(INVALID_PARAMS, "params.requestId", "is required")
          : progress ? new Violation(INVALID_PARAMS, "params.progressToken", "is required") : null;
    }
    if (!params.isObject()) {
      return new Violation(INVALID_PARAMS, "params", "must be an object, got " + typeOf(params));
    }
    Violation violation = metaViolation(params.get(StatelessEnvelope.META), rules, false);
    if (violation != null) {
      return violation;
    }
    if (cancelled) {
      JsonNode requestId = params.get("requestId");
      if (requestId == null) {
        return new Violation(INVALID_PARAMS, "params.requestId", "is required");
      }
      Violation id = idViolation(requestId, "params.requestId");
      return id != null
          ? new Violation(INVALID_PARAMS, id.field(), id.problem())
          : string(params, "reason", false, "params.reason");
    }
    if (progress) {
      JsonNode token = params.get("progressToken");
      if (token == null) {
        return new Violation(INVALID_PARAMS, "params.progressToken", "is required");
      }
      Violation tokenViolation = idViolation(token, "params.progressToken");
      if (tokenViolation != null) {
        return new Violation(INVALID_PARAMS, tokenViolation.field(), tokenViolation.problem());
      }
      return first(
          number(params, "progress", true, "params.progress"),
          number(params, "total", false, "params.total"),
          string(params, "message", false, "params.message"));
    }
    return null;
  }

  // ----------------------------------------------------------------------------------- responses

  /** A client's answer to a server request: a usable id, a result that is an object. */
  private static Violation responseViolation(JsonRpcResponse response, Rules rules) {
    Violation violation = idViolation(response.id(), "id");
    if (violation != null) {
      return violation;
    }
    if (response.isError()) {
      return null;
    }
    JsonNode result = response.result();
    if (!result.isObject()) {
      return new Violation(INVALID_REQUEST, "result", "must be an object, got " + typeOf(result));
    }
    violation = metaViolation(result.get(StatelessEnvelope.META), rules, false);
    return violation == null
        ? null
        : new Violation(
            INVALID_REQUEST,
            "result" + violation.field().substring("params".length()),
            violation.problem());
  }

  // ------------------------------------------------------------------------------------- _meta

  /**
   * {@code _meta}: absent or an object; its keys named by the rules (when they apply); a request's
   * progress token a string or a safe integer.
   */
  private static Violation metaViolation(JsonNode meta, Rules rules, boolean request) {
    if (meta == null) {
      return null;
    }
    if (!meta.isObject()) {
      return new Violation(
          INVALID_PARAMS, "params._meta", "must be an object, got " + typeOf(meta));
    }
    if (rules.metaKeyNames()) {
      for (Iterator<String> keys = meta.fieldNames(); keys.hasNext(); ) {
        String key = keys.next();
        if (!SPEC_META_KEYS.contains(key) && !isMetaKey(key)) {
          return new Violation(
              INVALID_PARAMS,
              "params._meta[" + quoted(key) + "]",
              "is not a valid _meta key (an optional prefix of dot-separated labels and a slash, then"
                  + " a name that starts and ends with a letter or digit)");
        }
      }
    }
    if (request) {
      JsonNode token = meta.get("progressToken");
      if (token != null) {
        Violation violation = idViolation(token, "params._meta.progressToken");
        if (violation != null) {
          return new Violation(INVALID_PARAMS, violation.field(), violation.problem());
        }
      }
    }
    return null;
  }

  /**
   * The spec's {@code _meta} key names: an optional prefix (labels separated by dots, each starting
   * with a letter and ending with a letter or digit, hyphens inside, then a slash) and a name
   * (empty, or starting and ending with a letter or digit, with hyphens, underscores and dots
   * inside).
   */
  public static boolean isMetaKey(String key) {
    int slash = key.indexOf('/');
    int nameStart = 0;
    if (slash >= 0) {
      if (key.indexOf('/', slash + 1) >= 0 || !isPrefix(key, slash)) {
        return false;
      }
      nameStart = slash + 1;
    }
    int end = key.length();
    if (nameStart == end) {
      return true;
    }
    if (!isAlphanumeric(key.charAt(nameStart)) || !isAlphanumeric(key.charAt(end - 1))) {
      return false;
    }
    for (int i = nameStart + 1; i < end - 1; i++) {
      char c = key.charAt(i);
      if (!isAlphanumeric(c) && c != '-' && c != '_' && c != '.') {
        return false;
      }
    }
    return true;
  }

  /** Labels separated by dots in {@code key[0, end)}. */
  private static boolean isPrefix(String key, int end) {
    int labelStart = 0;
    for (int i = 0; i <= end; i++) {
      if (i == end || key.charAt(i) == '.') {
        if (!isLabel(key, labelStart, i)) {
          return false;
        }
        labelStart = i + 1;
      }
    }
    return true;
  }

  private static boolean isLabel(String key, int start, int end) {
    if (start >= end || !isLetter(key.charAt(start)) || !isAlphanumeric(key.charAt(end - 1))) {
      return false;
    }
    for (int i = start + 1; i < end - 1; i++) {
      char c = key.charAt(i);
      if (!isAlphanumeric(c) && c != '-') {
        return false;
      }
    }
    return true;
  }

  private static boolean isLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static boolean isAlphanumeric(char c) {
    return isLetter(c) || (c >= '0' && c <= '9');
  }

  // ------------------------------------------------------------------------------------ helpers

  /**
   * A JSON-RPC id as MCP types it ({@code string | number}, which JS peers read as a double): a
   * string, or an integer no larger than 2^53 - 1 in magnitude; -32600 naming {@code field}.
   */
  private static Violation idViolation(JsonNode id, String field) {
    if (id.isTextual()) {
      return null;
    }
    if (id.isIntegralNumber()) {
      return id.canConvertToLong() && Math.abs(id.longValue()) <= MAX_SAFE_INTEGER
          ? null
          : new Violation(
              INVALID_REQUEST, field, "must be an integer of at most 2^53 - 1 in magnitude");
    }
    if (id.isNumber()) {
      BigDecimal value = id.decimalValue();
      if (value.signum() != 0 && value.stripTrailingZeros().scale() > 0) {
        return new Violation(
            INVALID_REQUEST, field, "must be a string or an integer, got a fractional number");
      }
      return value.abs().compareTo(MAX_SAFE) <= 0
          ? null
          : new Violation(
              INVALID_REQUEST, field, "must be an integer of at most 2^53 - 1 in magnitude");
    }
    return new Violation(
        INVALID_REQUEST, field, "must be a string or an integer, got " + typeOf(id));
  }

  private static Violation string(JsonNode parent, String name, boolean required, String field) {
    JsonNode value = parent.get(name);
    if (value == null) {
      return required ? new Violation(INVALID_PARAMS, field, "is required") : null;
    }
    return value.isTextual()
        ? null
        : new Violation(INVALID_PARAMS, field, "must be a string, got " + typeOf(value));
  }

  private static Violation object(JsonNode parent, String name, boolean required, String field) {
    JsonNode value = parent.get(name);
    if (value == null) {
      return required ? new Violation(INVALID_PARAMS, field, "is required") : null;
    }
    return value.isObject()
        ? null
        : new Violation(INVALID_PARAMS, field, "must be an object, got " + typeOf(value));
  }

  private static Violation number(JsonNode parent, String name, boolean required, String field) {
    JsonNode value = parent.get(name);
    if (value == null) {
      return required ? new Violation(INVALID_PARAMS, field, "is required") : null;
    }
    return value.isNumber()
        ? null
        : new Violation(INVALID_PARAMS, field, "must be a number, got " + typeOf(value));
  }

  /**
   * An object whose values are strings ({@code prompts/get}'s arguments, a completion's context).
   */
  private static Violation stringMap(JsonNode parent, String name, boolean required, String field) {
    Violation violation = object(parent, name, required, field);
    JsonNode map = parent.get(name);
    if (violation != null || map == null) {
      return violation;
    }
    for (Iterator<Map.Entry<String, JsonNode>> entries = map.fields(); entries.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = entries.next();
      if (!entry.getValue().isTextual()) {
        return new Violation(
            INVALID_PARAMS,
            field + "[" + quoted(entry.getKey()) + "]",
            "must be a string, got " + typeOf(entry.getValue()));
      }
    }
    return null;
  }

  private static Violation first(Violation... violations) {
    for (Violation violation : violations) {
      if (violation != null) {
        return violation;
      }
    }
    return null;
  }

  private static String metaField(String key) {
    return "params._meta[" + quoted(key) + "]";
  }

  /** A key as JSON text, cut to 64 characters: it is echoed to the client. */
  private static String quoted(String key) {
    String cut = key.length() > 64 ? key.substring(0, 64) + "…" : key;
    return JsonRpcCodec.mapper().getNodeFactory().textNode(cut).toString();
  }

  /** The type of a value, or "nothing" for an absent one, and short values themselves. */
  private static String describe(JsonNode value) {
    if (value == null) {
      return "nothing";
    }
    if (value.isTextual() && value.textValue().length() <= 32) {
      return value.toString();
    }
    return typeOf(value);
  }

  private static String typeOf(JsonNode node) {
    return node.getNodeType().name().toLowerCase(Locale.ROOT);
  }
}
