package dev.mcpsupervisor.protocol.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;

/**
 * One tool of a {@code tools/list} result.
 *
 * @param title null when the server gives none
 * @param description empty when the server gives none
 * @param inputSchema the JSON schema of the arguments ({@code {"type":"object"}} when the server
 *     gives none)
 * @param outputSchema the JSON schema of {@code structuredContent}, or null
 * @param json the tool as the server listed it, with fields this record leaves out ({@code
 *     annotations}, {@code _meta}, {@code icons}...)
 */
public record McpTool(
    String name,
    String title,
    String description,
    ObjectNode inputSchema,
    ObjectNode outputSchema,
    JsonNode json) {

  /** Reads one entry of a {@code tools/list} result's {@code tools} array. */
  public static McpTool fromJson(JsonNode tool) {
    JsonNode input = tool.path("inputSchema");
    JsonNode output = tool.path("outputSchema");
    ObjectNode inputSchema;
    if (input.isObject()) {
      inputSchema = (ObjectNode) input;
    } else {
      inputSchema = JsonRpcCodec.emptyObject();
      inputSchema.put("type", "object");
    }
    return new McpTool(
        tool.path("name").asText(),
        tool.path("title").isTextual() ? tool.get("title").asText() : null,
        tool.path("description").asText(""),
        inputSchema,
        output.isObject() ? (ObjectNode) output : null,
        tool);
  }
}
