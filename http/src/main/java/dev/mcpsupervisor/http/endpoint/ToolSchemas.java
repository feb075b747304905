package dev.mcpsupervisor.http.endpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A tool's {@code inputSchema} as its server lists it, for the checks that need it (the Mcp-Param-*
 * headers of a 2026-07-28 tools/call). The list is asked for like any client's tools/list, all
 * pages, so the supervisor's list cache answers it: no upstream call while the cached list is
 * fresh, one shared fetch when it is not.
 */
final class ToolSchemas {

  private static final JsonRpcRequest TOOLS_LIST =
      new JsonRpcRequest(IntNode.valueOf(0), McpMethods.TOOLS_LIST, JsonRpcCodec.emptyObject());

  private final AggregatedLists lists;

  ToolSchemas(AggregatedLists lists) {
    this.lists = lists;
  }

  /** The schema of {@code tool} as {@code server} lists it; null when it is not listed. */
  CompletionStage<JsonNode> of(String server, String tool, UpstreamCalls calls) {
    return lists
        .collect(TOOLS_LIST, calls, List.of(server), "tools")
        .thenApply(
            collected -> {
              for (JsonNode item : collected.byServer().getOrDefault(server, List.of())) {
                if (tool.equals(item.path("name").asText(null))) {
                  return item.path("inputSchema");
                }
              }
              return null;
            });
  }
}
