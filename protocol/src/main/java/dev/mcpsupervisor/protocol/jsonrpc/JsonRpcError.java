package dev.mcpsupervisor.protocol.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;

/** The error member of a response. {@code data} is null when absent. */
public record JsonRpcError(int code, String message, JsonNode data) {

  // JSON-RPC 2.0's own codes; MCP's and the gateway's are in JsonRpcErrorCodes
  public static final int PARSE_ERROR = -32700;
  public static final int INVALID_REQUEST = -32600;
  public static final int METHOD_NOT_FOUND = -32601;
  public static final int INVALID_PARAMS = -32602;
  public static final int INTERNAL_ERROR = -32603;

  public JsonRpcError(int code, String message) {
    this(code, message, null);
  }
}
