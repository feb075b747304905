package dev.mcpsupervisor.protocol.envelope;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;
import static dev.mcpsupervisor.protocol.envelope.Fields.describe;
import static dev.mcpsupervisor.protocol.envelope.Fields.first;
import static dev.mcpsupervisor.protocol.envelope.Fields.object;
import static dev.mcpsupervisor.protocol.envelope.Fields.string;
import static dev.mcpsupervisor.protocol.envelope.Fields.stringMap;
import static dev.mcpsupervisor.protocol.envelope.Fields.typeOf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.LogLevels;
import dev.mcpsupervisor.protocol.McpMethods;
import java.util.Set;

/**
 * The fields each known method needs, with their JSON types: present when the schema requires them,
 * of their type when present ({@code tools/call}'s {@code name} and {@code arguments}, {@code
 * resources/read}'s {@code uri}, {@code completion/complete}'s {@code ref} and {@code argument},
 * {@code logging/setLevel}'s level, {@code initialize}, a 2026-07-28 listen filter). Methods of the
 * other era are not held to them (a 2026-07-28 client's {@code initialize} is refused later as not
 * part of its revision).
 */
final class MethodFields {

  private static final Set<String> REF_TYPES = Set.of("ref/prompt", "ref/resource");

  private MethodFields() {}

  static String requiredField(String method, EnvelopeRules.Rules rules) {
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
  static Violation methodViolation(String method, JsonNode params, EnvelopeRules.Rules rules) {
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
}
