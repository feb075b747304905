package dev.mcpsupervisor.actors;

import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;

/** A failed lease or lookup, carrying the JSON-RPC error a downstream client should see. */
public final class SupervisorException extends RuntimeException {

  private final transient JsonRpcError error;

  public SupervisorException(JsonRpcError error) {
    super(error.message(), null, false, false);
    this.error = error;
  }

  public JsonRpcError error() {
    return error;
  }
}
