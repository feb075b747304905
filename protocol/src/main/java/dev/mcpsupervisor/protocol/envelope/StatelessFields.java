package dev.mcpsupervisor.protocol.envelope;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;
import static dev.mcpsupervisor.protocol.envelope.Fields.describe;
import static dev.mcpsupervisor.protocol.envelope.Fields.first;
import static dev.mcpsupervisor.protocol.envelope.Fields.metaField;
import static dev.mcpsupervisor.protocol.envelope.Fields.object;
import static dev.mcpsupervisor.protocol.envelope.Fields.quoted;
import static dev.mcpsupervisor.protocol.envelope.Fields.string;
import static dev.mcpsupervisor.protocol.envelope.Fields.typeOf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.LogLevels;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * What a 2026-07-28 request carries beyond its method's fields: the request metadata's types (their
 * presence is {@link StatelessEnvelope}'s to check, in the spec's order), {@code requestState} and
 * {@code inputResponses}.
 */
final class StatelessFields {

  private static final String VERSION_FIELD = metaField(StatelessEnvelope.META_PROTOCOL_VERSION);
  private static final String CAPABILITIES_FIELD =
      metaField(StatelessEnvelope.META_CLIENT_CAPABILITIES);
  private static final String CLIENT_INFO_FIELD = metaField(StatelessEnvelope.META_CLIENT_INFO);
  private static final String CLIENT_NAME_FIELD = CLIENT_INFO_FIELD + ".name";
  private static final String CLIENT_VERSION_FIELD = CLIENT_INFO_FIELD + ".version";
  private static final String LOG_LEVEL_FIELD = metaField(StatelessEnvelope.META_LOG_LEVEL);
  private static final Set<String> ELICIT_ACTIONS = Set.of("accept", "decline", "cancel");
  private static final Set<String> ROLES = Set.of("user", "assistant");

  private StatelessFields() {}

  /**
   * 2026-07-28: the request metadata's types (their presence is {@link StatelessEnvelope}'s to
   * check, in the spec's order), {@code inputResponses} and {@code requestState}.
   */
  static Violation statelessViolation(JsonNode params) {
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
  static String inputResponseProblem(JsonNode response) {
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
}
