package dev.mcpsupervisor.protocol.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.Set;

/**
 * Which tools of one server the gateway exposes: those on the allow-list ({@code tools}; absent:
 * every tool) that are not on the deny-list ({@code disabledTools}). A hidden tool is left out of
 * every tools/list answer and a tools/call of it is refused as the MCP spec answers an unknown
 * tool, so a client cannot tell it from a tool the server does not have. Immutable.
 *
 * @param allowed the only tools exposed, or null for every tool
 * @param disabled tools never exposed
 */
public record ToolFilter(Set<String> allowed, Set<String> disabled) {

  /** Exposes every tool: what a server without {@code tools} or {@code disabledTools} gets. */
  public static final ToolFilter ALL = new ToolFilter(null, Set.of());

  public ToolFilter {
    allowed = allowed == null ? null : Set.copyOf(allowed);
    disabled = Set.copyOf(disabled);
  }

  public boolean exposesAll() {
    return allowed == null && disabled.isEmpty();
  }

  /**
   * Whether a tool of this name is exposed; a tool without a name only when nothing is
   * allowed-listed.
   */
  public boolean exposes(String name) {
    if (name == null) {
      return allowed == null;
    }
    return (allowed == null || allowed.contains(name)) && !disabled.contains(name);
  }

  /**
   * A tools/list answer with the hidden tools left out (a copy; the answer itself is untouched). An
   * error, or a result without a {@code tools} array, is returned as it is.
   */
  public JsonRpcResponse visible(JsonRpcResponse toolsList) {
    if (exposesAll()
        || toolsList.isError()
        || !(toolsList.result() instanceof ObjectNode result)
        || !(result.get("tools") instanceof ArrayNode tools)) {
      return toolsList;
    }
    ArrayNode kept = tools.arrayNode();
    for (JsonNode tool : tools) {
      if (exposes(tool.path("name").asText(null))) {
        kept.add(tool);
      }
    }
    if (kept.size() == tools.size()) {
      return toolsList;
    }
    ObjectNode filtered = result.deepCopy();
    filtered.set("tools", kept);
    return new JsonRpcResponse(toolsList.id(), filtered, null, toolsList.extras());
  }

  /**
   * The error a call of {@code method} with {@code params} is refused with before it goes upstream,
   * or null when it may go: only a tools/call of a hidden tool is refused (one without a name goes
   * on, for the server to answer).
   */
  public JsonRpcError refusal(String method, JsonNode params) {
    if (exposesAll() || !McpMethods.TOOLS_CALL.equals(method) || params == null) {
      return null;
    }
    JsonNode name = params.get("name");
    if (name == null || !name.isTextual() || exposes(name.textValue())) {
      return null;
    }
    return unknownTool(name.textValue());
  }

  /** The MCP spec's answer to a tools/call of a tool the server does not have. */
  public static JsonRpcError unknownTool(String name) {
    return new JsonRpcError(JsonRpcErrorCodes.INVALID_PARAMS, "Unknown tool: " + name);
  }
}
