package dev.mcpsupervisor.protocol.jsonrpc;

import java.util.List;

/**
 * What one HTTP body or one stdio line held: a message, a batch, or nothing usable (with the error
 * to send back).
 */
public sealed interface ParsedPayload {

  record Single(JsonRpcMessage message) implements ParsedPayload {}

  /** Each element is either a valid message or the error response owed for that element. */
  record Batch(List<Element> elements) implements ParsedPayload {
    public Batch {
      elements = List.copyOf(elements);
    }
  }

  /** Exactly one of {@code message} and {@code error} is non-null. */
  record Element(JsonRpcMessage message, JsonRpcResponse error) {}

  /**
   * Not JSON, or not a JSON-RPC message at all (-32700 / -32600); the error is the whole answer.
   */
  record Rejected(JsonRpcResponse error) implements ParsedPayload {}
}
