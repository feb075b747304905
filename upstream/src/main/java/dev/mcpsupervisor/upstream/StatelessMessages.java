package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;

/**
 * The translations between the session era the supervisor's sessions speak and MCP 2026-07-28: the
 * {@code _meta} envelope every stateless request carries, an initialize result made of a discover
 * result, results made fit for a session-era client. Plain functions on Jackson trees.
 */
final class StatelessMessages {

  static final String RESULT_TYPE = "resultType";
  static final String COMPLETE = "complete";
  static final String INPUT_REQUIRED = "input_required";
  static final String INPUT_REQUESTS = "inputRequests";
  static final String INPUT_RESPONSES = "inputResponses";
  static final String REQUEST_STATE = "requestState";

  private StatelessMessages() {}

  /**
   * Who the supervisor is to a stateless server, from the session's own initialize: what it
   * declares there, it declares on every request.
   *
   * @param logLevel the level the session last set, or null (then the server logs nothing)
   */
  record Envelope(JsonNode clientCapabilities, JsonNode clientInfo, String logLevel) {

    static Envelope of(JsonRpcRequest initialize) {
      JsonNode params =
          initialize.params() == null ? JsonRpcCodec.emptyObject() : initialize.params();
      return new Envelope(
          params.path("capabilities").isObject()
              ? params.get("capabilities")
              : JsonRpcCodec.emptyObject(),
          params.path("clientInfo").isObject() ? params.get("clientInfo") : null,
          null);
    }

    Envelope withLogLevel(String level) {
      return new Envelope(clientCapabilities, clientInfo, level);
    }
  }

  /**
   * {@code params} with the envelope in its {@code _meta} (a copy; keys the caller set there, such
   * as a progress token, stay).
   */
  static ObjectNode withEnvelope(JsonNode params, Envelope envelope) {
    ObjectNode copy =
        params instanceof ObjectNode given ? given.deepCopy() : JsonRpcCodec.emptyObject();
    ObjectNode meta =
        copy.get(StatelessEnvelope.META) instanceof ObjectNode given
            ? given
            : copy.putObject(StatelessEnvelope.META);
    meta.put(StatelessEnvelope.META_PROTOCOL_VERSION, ProtocolVersions.V2026_07_28);
    // a 2026-07-28 caller's own capabilities and info pass through: the server decides by them
    // (refusing with -32021, or answering a client without elicitation by itself)
    if (!meta.path(StatelessEnvelope.META_CLIENT_CAPABILITIES).isObject()) {
      meta.set(StatelessEnvelope.META_CLIENT_CAPABILITIES, envelope.clientCapabilities());
    }
    if (envelope.clientInfo() != null
        && !meta.path(StatelessEnvelope.META_CLIENT_INFO).isObject()) {
      meta.set(StatelessEnvelope.META_CLIENT_INFO, envelope.clientInfo());
    }
    if (envelope.logLevel() != null) {
      meta.put(StatelessEnvelope.META_LOG_LEVEL, envelope.logLevel());
    }
    return copy;
  }

  /** Whether a discover answer names 2026-07-28 among the versions the server speaks. */
  static boolean speaksStateless(JsonRpcResponse discoverAnswer) {
    if (discoverAnswer.isError()) {
      return false;
    }
    for (JsonNode version : discoverAnswer.result().path("supportedVersions")) {
      if (ProtocolVersions.V2026_07_28.equals(version.asText())) {
        return true;
      }
    }
    return false;
  }

  /** An HTTP server's refusal of {@code initialize} that came with no JSON-RPC answer. */
  static JsonRpcResponse refusedByHttp(JsonRpcRequest initialize, Throwable failure) {
    return JsonRpcResponse.failure(
        initialize.id(),
        JsonRpcErrorCodes.INTERNAL_ERROR,
        "initialize failed: " + HttpTransport.describe(failure));
  }

  /**
   * Whether an initialize was refused because the server speaks 2026-07-28 only: -32022 whose
   * {@code data.supported} names it.
   */
  static boolean refusedForStateless(JsonRpcResponse initializeAnswer) {
    if (!initializeAnswer.isError()
        || initializeAnswer.error().code() != JsonRpcErrorCodes.UNSUPPORTED_PROTOCOL_VERSION
        || initializeAnswer.error().data() == null) {
      return false;
    }
    for (JsonNode version : initializeAnswer.error().data().path("supported")) {
      if (ProtocolVersions.V2026_07_28.equals(version.asText())) {
        return true;
      }
    }
    return false;
  }

  /**
   * The initialize result a session-era client expects, made of a discover result: the version the
   * client asked for, the server's capabilities, identity and instructions.
   */
  static ObjectNode initializeResult(JsonRpcRequest initialize, JsonNode discoverResult) {
    ObjectNode result = JsonRpcCodec.emptyObject();
    String requested =
        initialize.params() == null
            ? null
            : initialize.params().path("protocolVersion").asText(null);
    result.put("protocolVersion", requested == null ? ProtocolVersions.LATEST : requested);
    result.set(
        "capabilities",
        discoverResult.path("capabilities").isObject()
            ? discoverResult.get("capabilities")
            : JsonRpcCodec.emptyObject());
    JsonNode serverInfo =
        discoverResult.path(StatelessEnvelope.META).path(StatelessEnvelope.META_SERVER_INFO);
    if (serverInfo.isObject()) {
      result.set("serverInfo", serverInfo);
    } else {
      result.putObject("serverInfo").put("name", "unnamed").put("version", "0");
    }
    if (discoverResult.hasNonNull("instructions")) {
      result.set("instructions", discoverResult.get("instructions"));
    }
    return result;
  }

  static boolean isInputRequired(JsonRpcResponse answer) {
    return !answer.isError() && INPUT_REQUIRED.equals(answer.result().path(RESULT_TYPE).asText());
  }

  /**
   * A final result as a session-era client knows it: without {@code resultType: complete} (cache
   * hints stay, a client ignores what it does not know).
   */
  static JsonRpcResponse forSessionClient(JsonRpcResponse answer, JsonNode sessionId) {
    if (answer.isError()
        || !(answer.result() instanceof ObjectNode result)
        || !COMPLETE.equals(result.path(RESULT_TYPE).asText())) {
      return answer.withId(sessionId);
    }
    ObjectNode copy = JsonRpcCodec.emptyObject().setAll(result);
    copy.remove(RESULT_TYPE);
    return JsonRpcResponse.success(sessionId, copy);
  }

  /**
   * The retry of a request after its input round: the same params (envelope included), the answers
   * by key, and the server's state echoed as it was.
   *
   * @param requestState the state the server sent, or null when it sent none
   */
  static ObjectNode retryParams(JsonNode params, ObjectNode inputResponses, JsonNode requestState) {
    ObjectNode retry = ((ObjectNode) params).deepCopy();
    retry.remove(INPUT_RESPONSES);
    retry.remove(REQUEST_STATE);
    if (!inputResponses.isEmpty()) {
      retry.set(INPUT_RESPONSES, inputResponses);
    }
    if (requestState != null && !requestState.isNull()) {
      retry.set(REQUEST_STATE, requestState);
    }
    return retry;
  }

  /**
   * The answer to the session's initialize when the server's discover answer does not confirm
   * 2026-07-28 (and no probe falls back to the session era): the discover error, or the versions
   * the server supports.
   */
  static JsonRpcResponse notStateless(JsonRpcResponse discoverAnswer, JsonNode sessionId) {
    return discoverAnswer.isError()
        ? error(
            sessionId,
            discoverAnswer.error().code(),
            "server/discover failed: " + discoverAnswer.error().message())
        : error(
            sessionId,
            JsonRpcErrorCodes.UNSUPPORTED_PROTOCOL_VERSION,
            "the server does not speak 2026-07-28 (it supports "
                + discoverAnswer.result().path("supportedVersions")
                + ")");
  }

  static JsonRpcResponse error(JsonNode id, int code, String message) {
    return JsonRpcResponse.failure(id, new JsonRpcError(code, message, null));
  }
}
