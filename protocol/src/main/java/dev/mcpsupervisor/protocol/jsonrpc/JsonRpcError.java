package dev.mcpsupervisor.protocol.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;

/** The error member of a response. {@code data} is null when absent. */
public record JsonRpcError(int code, String message, JsonNode data) {

  public JsonRpcError(int code, String message) {
    this(code, message, null);
  }
}
