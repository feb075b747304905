package dev.mcpsupervisor.actors.session;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;

/**
 * A session's answer to an acquire: the upstream's initialize result once ready, or why not.
 * Exactly one is non-null.
 */
public record AcquireReply(JsonNode initializeResult, JsonRpcError error) {

  static AcquireReply ready(JsonNode initializeResult) {
    return new AcquireReply(initializeResult, null);
  }

  public static AcquireReply failed(JsonRpcError error) {
    return new AcquireReply(null, error);
  }
}
