package dev.mcpsupervisor.protocol.jsonrpc;

/** A JSON-RPC error raised while reading a message; carries the error to answer with. */
public final class JsonRpcException extends Exception {

  private final transient JsonRpcError error;

  public JsonRpcException(JsonRpcError error) {
    super(error.message(), null, false, false);
    this.error = error;
  }

  public JsonRpcError error() {
    return error;
  }
}
