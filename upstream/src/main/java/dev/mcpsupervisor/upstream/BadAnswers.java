package dev.mcpsupervisor.upstream;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INTERNAL_ERROR;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;

/**
 * What a connection delivers when the answer to one of our requests is not one (not JSON-RPC, or no
 * response to that request): an error response to that request, marked so that the session answers
 * its caller with an error naming the server. The request is over; the connection and its other
 * requests go on.
 */
public final class BadAnswers {

  private static final String MARK = "badAnswer";

  private BadAnswers() {}

  /** The answer to {@code requestId}; {@code problem} is for the log, never for the client. */
  static JsonRpcResponse to(JsonNode requestId, String problem) {
    ObjectNode data = JsonRpcCodec.emptyObject();
    data.put(MARK, problem);
    return JsonRpcResponse.failure(
        requestId,
        new JsonRpcError(
            INTERNAL_ERROR, "the answer is not a JSON-RPC response to the request", data));
  }

  /** What was wrong with the answer {@code response} stands for; null for any other response. */
  public static String problemOf(JsonRpcResponse response) {
    if (!response.isError() || response.error().code() != INTERNAL_ERROR) {
      return null;
    }
    JsonNode data = response.error().data();
    return data != null && data.path(MARK).isTextual() ? data.get(MARK).textValue() : null;
  }
}
