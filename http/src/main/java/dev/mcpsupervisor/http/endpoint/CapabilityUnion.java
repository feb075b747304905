package dev.mcpsupervisor.http.endpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.util.Collection;
import java.util.List;

/**
 * The capabilities an aggregated endpoint advertises: the union of what its servers declared at
 * initialize.
 */
final class CapabilityUnion {

  private CapabilityUnion() {}

  /**
   * Every one of {@code routable} that any server has; a boolean flag is set when any server sets
   * it, nested objects are merged, and other values are the first server's.
   */
  static ObjectNode of(Collection<JsonNode> initializeResults, List<String> routable) {
    ObjectNode union = JsonRpcCodec.emptyObject();
    for (JsonNode init : initializeResults) {
      JsonNode capabilities = init.path("capabilities");
      for (String name : routable) {
        JsonNode capability = capabilities.get(name);
        if (capability != null && capability.isObject()) {
          merge(union.has(name) ? (ObjectNode) union.get(name) : union.putObject(name), capability);
        }
      }
    }
    return union;
  }

  /**
   * {@code union} with each of {@code lists} declared, and declared to change: an endpoint whose
   * servers a reload adds and removes has lists that change whatever its servers say, and a kind
   * none of them has yet may come with a server added later (declared now, a session opened now can
   * list it then).
   */
  static ObjectNode withChangingLists(ObjectNode union, List<String> lists) {
    lists.forEach(
        name ->
            (union.get(name) instanceof ObjectNode declared ? declared : union.putObject(name))
                .put("listChanged", true));
    return union;
  }

  private static void merge(ObjectNode into, JsonNode from) {
    from.properties()
        .forEach(
            member -> {
              String name = member.getKey();
              JsonNode value = member.getValue();
              JsonNode existing = into.get(name);
              if (value.isBoolean()) {
                into.put(
                    name, value.booleanValue() || (existing != null && existing.asBoolean(false)));
              } else if (value.isObject() && existing != null && existing.isObject()) {
                merge((ObjectNode) existing, value);
              } else if (existing == null) {
                into.set(name, value.deepCopy());
              }
            });
  }
}
