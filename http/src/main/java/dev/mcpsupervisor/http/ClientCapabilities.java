package dev.mcpsupervisor.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.util.Iterator;

/**
 * What a downstream session keeps of its client's capabilities: the names it declared, each mapped
 * to an empty object. The gateway only asks whether one is declared ({@code has("roots")}), and a
 * session lives for up to its idle timeout: the client's whole object (any size, within the body
 * limit) is not kept that long.
 */
final class ClientCapabilities {

  /** More names than MCP defines, by far; the rest are dropped. */
  static final int MAX_NAMES = 32;

  private ClientCapabilities() {}

  /** The names declared in {@code capabilities} (an empty object for anything but an object). */
  static ObjectNode namesOf(JsonNode capabilities) {
    ObjectNode names = JsonRpcCodec.emptyObject();
    if (capabilities == null || !capabilities.isObject()) {
      return names;
    }
    Iterator<String> fields = capabilities.fieldNames();
    while (fields.hasNext() && names.size() < MAX_NAMES) {
      names.set(fields.next(), JsonRpcCodec.emptyObject());
    }
    return names;
  }
}
