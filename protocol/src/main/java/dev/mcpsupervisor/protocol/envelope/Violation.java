package dev.mcpsupervisor.protocol.envelope;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;

/**
 * Why a message is refused: the error code, the field at fault (a path such as {@code params._meta}
 * or {@code params.inputResponses["elicitation-1"]}) and what is wrong with it.
 */
public record Violation(int code, String field, String problem) {

  /** The JSON-RPC error for the client, with {@code data.field}. */
  public JsonRpcError error() {
    ObjectNode data = JsonRpcCodec.emptyObject();
    data.put("field", field);
    String kind = code == INVALID_PARAMS ? "Invalid params: " : "Invalid Request: ";
    return new JsonRpcError(code, kind + field + " " + problem, data);
  }

  /**
   * The answer to {@code message}: a request's id as it was sent (even one these rules refuse: the
   * client still tells which request it was), none for a notification or an answer.
   */
  public JsonRpcResponse answerTo(JsonRpcMessage message) {
    JsonNode id = null;
    if (message instanceof JsonRpcRequest request) {
      id = request.id();
    }
    return JsonRpcResponse.failure(id, error());
  }
}
