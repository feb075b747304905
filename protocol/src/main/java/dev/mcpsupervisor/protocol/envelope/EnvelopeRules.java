package dev.mcpsupervisor.protocol.envelope;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INTERNAL_ERROR;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;
import static dev.mcpsupervisor.protocol.envelope.Fields.first;
import static dev.mcpsupervisor.protocol.envelope.Fields.number;
import static dev.mcpsupervisor.protocol.envelope.Fields.quoted;
import static dev.mcpsupervisor.protocol.envelope.Fields.string;
import static dev.mcpsupervisor.protocol.envelope.Fields.typeOf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Optional;

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
 * kept. No thread, no state: the rules are plain functions of the message. The parts: {@link
 * MethodFields} (each known method's fields), {@link StatelessFields} (what a 2026-07-28 request
 * carries besides), {@link MetaKeys} (the {@code _meta} key names), {@link Fields} (one field's
 * type check).
 */
public final class EnvelopeRules {

  /**
   * JavaScript's Number.MAX_SAFE_INTEGER: ids and tokens beyond it lose their value in JS peers.
   */
  public static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

  private static final BigDecimal MAX_SAFE = BigDecimal.valueOf(MAX_SAFE_INTEGER);

  /** The version that introduced the {@code _meta} key naming rules. */
  private static final String META_KEY_RULES_SINCE = ProtocolVersions.V2025_06_18;

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
      violation = StatelessFields.statelessViolation(params);
    }
    return violation != null
        ? violation
        : MethodFields.methodViolation(request.method(), params, rules);
  }

  /** A method whose params hold required fields needs params. */
  private static Violation requiredParams(String method, Rules rules) {
    String required = MethodFields.requiredField(method, rules);
    return required == null
        ? null
        : new Violation(INVALID_PARAMS, "params." + required, "is required");
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
        if (!MetaKeys.isMetaKey(key)) {
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

  // ------------------------------------------------------------------------------------ helpers

  /**
   * A JSON-RPC id as MCP types it ({@code string | number}, which JS peers read as a double): a
   * string, or an integer no larger than 2^53 - 1 in magnitude; -32600 naming {@code field}.
   */
  static Violation idViolation(JsonNode id, String field) {
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
}
