package dev.mcpsupervisor.actors.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.actors.telemetry.McpSpan;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import java.util.HashMap;
import java.util.Map;

/**
 * Replaces each caller's progress token with one unique on the session, so two callers' tokens
 * never collide, and maps the upstream's progress back to the caller with its own token.
 */
final class ProgressTokens {

  private final long sessionId;
  private final Map<String, TrackedCall> byUpstreamToken = new HashMap<>();

  ProgressTokens(long sessionId) {
    this.sessionId = sessionId;
  }

  /**
   * Starts tracking a call traced by {@code span}: its params as they go upstream ({@code span}'s),
   * with our token if the caller gave one.
   */
  TrackedCall track(UpstreamCall call, McpSpan span) {
    JsonNode params = span.params();
    JsonNode callerToken = params == null ? null : params.path("_meta").get("progressToken");
    if (callerToken == null || !params.path("_meta").isObject()) {
      return new TrackedCall(call, span, params, null, null);
    }
    String upstreamToken = "mcps-" + sessionId + "-" + call.callId();
    // a recording span's params are a copy already
    ObjectNode rewritten =
        span.isRecording() ? (ObjectNode) params : ((ObjectNode) params).deepCopy();
    ((ObjectNode) rewritten.get("_meta")).put("progressToken", upstreamToken);
    TrackedCall tracked = new TrackedCall(call, span, rewritten, callerToken, upstreamToken);
    byUpstreamToken.put(upstreamToken, tracked);
    return tracked;
  }

  void forget(TrackedCall call) {
    if (call.upstreamProgressToken != null) {
      byUpstreamToken.remove(call.upstreamProgressToken);
    }
  }

  static JsonNode tokenOf(JsonRpcNotification progress) {
    return progress.params() == null ? null : progress.params().get("progressToken");
  }

  /** The call an upstream progress token belongs to, or null if it is not one of ours. */
  TrackedCall callOf(JsonNode token) {
    return token != null && token.isTextual() ? byUpstreamToken.get(token.textValue()) : null;
  }

  /** The notification as the caller expects it: carrying the caller's own token. */
  static JsonRpcNotification forCaller(JsonRpcNotification progress, TrackedCall call) {
    ObjectNode restored = ((ObjectNode) progress.params()).deepCopy();
    restored.set("progressToken", call.callerProgressToken);
    return progress.withParams(restored);
  }
}
