package dev.mcpsupervisor.protocol.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;

/** A JSON-RPC error raised while reading a message; carries the error to answer with. */
public final class JsonRpcException extends Exception {

  private final transient JsonRpcError error;
  private final transient JsonNode id;

  public JsonRpcException(JsonRpcError error) {
    this(error, null);
  }

  /**
   * @param id the id of the offending message when it could be read, else null
   */
  public JsonRpcException(JsonRpcError error, JsonNode id) {
    super(error.message(), null, false, false);
    this.error = error;
    this.id = id;
  }

  public JsonRpcError error() {
    return error;
  }

  /**
   * The id to answer with: the offending message's id when it could be read, else null (answered as
   * JSON null).
   */
  public JsonNode id() {
    return id;
  }
}
