package dev.mcpsupervisor.http.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

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

  /** Sets of names as clients declare them, shared (see {@link SharedValues}). */
  private static final SharedValues<ObjectNode> SHARED = new SharedValues<>(256, 512);

  /**
   * The names declared in {@code capabilities} (an empty object for anything but an object); one
   * shared, read-only node per set of names.
   */
  static ObjectNode namesOf(JsonNode capabilities) {
    List<String> names = new ArrayList<>();
    StringBuilder key = new StringBuilder(); // each name length-prefixed: no two sets alike
    if (capabilities != null && capabilities.isObject()) {
      Iterator<String> fields = capabilities.fieldNames();
      while (fields.hasNext() && names.size() < MAX_NAMES) {
        String name = fields.next();
        names.add(name);
        key.append(name.length()).append(':').append(name);
      }
    }
    return SHARED.of(key.toString(), notUsed -> nodeOf(names));
  }

  private static ObjectNode nodeOf(List<String> names) {
    ObjectNode node = JsonRpcCodec.emptyObject();
    names.forEach(name -> node.set(name, JsonRpcCodec.emptyObject()));
    return node;
  }
}
