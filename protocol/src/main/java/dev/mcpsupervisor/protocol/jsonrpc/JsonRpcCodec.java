package dev.mcpsupervisor.protocol.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Reads and writes JSON-RPC 2.0 messages as Jackson trees. Reading never throws for bad input: it answers with the
 * JSON-RPC error a client expects. Reading is bounded by Jackson's stream read constraints.
 */
public final class JsonRpcCodec {

  private JsonRpcCodec() {}

  /** The shared mapper, configured with bounded stream read constraints. Thread-safe; do not reconfigure. */
  public static ObjectMapper mapper() {
    throw new UnsupportedOperationException("TODO");
  }

  public static ObjectNode emptyObject() {
    throw new UnsupportedOperationException("TODO");
  }

  /** Parses a whole payload (an HTTP body or one stdio line). */
  public static ParsedPayload parse(byte[] payload) {
    throw new UnsupportedOperationException("TODO");
  }

  public static ParsedPayload parse(String payload) {
    throw new UnsupportedOperationException("TODO");
  }

  /** Reads one already-parsed JSON value as a message. */
  public static JsonRpcMessage read(JsonNode node) throws JsonRpcException {
    throw new UnsupportedOperationException("TODO");
  }

  /** The wire form: {"jsonrpc":"2.0", id?, method?, params?, result?, error?, ...extras}. */
  public static ObjectNode toJson(JsonRpcMessage message) {
    throw new UnsupportedOperationException("TODO");
  }

  /** Compact UTF-8 bytes of {@link #toJson}, one line (no raw newlines), as stdio framing needs. */
  public static byte[] toBytes(JsonRpcMessage message) {
    throw new UnsupportedOperationException("TODO");
  }

  public static String toString(JsonRpcMessage message) {
    throw new UnsupportedOperationException("TODO");
  }
}
