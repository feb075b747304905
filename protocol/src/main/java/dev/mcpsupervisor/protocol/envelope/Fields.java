package dev.mcpsupervisor.protocol.envelope;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/** Checks of one field's presence and JSON type, and how a value is named in a violation. */
final class Fields {

  private Fields() {}

  static Violation string(JsonNode parent, String name, boolean required, String field) {
    JsonNode value = parent.get(name);
    if (value == null) {
      return required ? new Violation(INVALID_PARAMS, field, "is required") : null;
    }
    return value.isTextual()
        ? null
        : new Violation(INVALID_PARAMS, field, "must be a string, got " + typeOf(value));
  }

  static Violation object(JsonNode parent, String name, boolean required, String field) {
    JsonNode value = parent.get(name);
    if (value == null) {
      return required ? new Violation(INVALID_PARAMS, field, "is required") : null;
    }
    return value.isObject()
        ? null
        : new Violation(INVALID_PARAMS, field, "must be an object, got " + typeOf(value));
  }

  static Violation number(JsonNode parent, String name, boolean required, String field) {
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
  static Violation stringMap(JsonNode parent, String name, boolean required, String field) {
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

  static Violation first(Violation... violations) {
    for (Violation violation : violations) {
      if (violation != null) {
        return violation;
      }
    }
    return null;
  }

  static String metaField(String key) {
    return "params._meta[" + quoted(key) + "]";
  }

  /** A key as JSON text, cut to 64 characters: it is echoed to the client. */
  static String quoted(String key) {
    String cut = key.length() > 64 ? key.substring(0, 64) + "…" : key;
    return JsonRpcCodec.mapper().getNodeFactory().textNode(cut).toString();
  }

  /** The type of a value, or "nothing" for an absent one, and short values themselves. */
  static String describe(JsonNode value) {
    if (value == null) {
      return "nothing";
    }
    if (value.isTextual() && value.textValue().length() <= 32) {
      return value.toString();
    }
    return typeOf(value);
  }

  static String typeOf(JsonNode node) {
    return node.getNodeType().name().toLowerCase(Locale.ROOT);
  }
}
