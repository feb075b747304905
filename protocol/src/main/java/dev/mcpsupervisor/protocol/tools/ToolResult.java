package dev.mcpsupervisor.protocol.tools;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The result of a {@code tools/call}: what the tool answered, including a tool's own failure
 * ({@code isError}), which MCP reports as a result, not as a JSON-RPC error.
 *
 * @param content the content items ({@code {"type":"text","text":...}}, images, resource links...)
 * @param structuredContent the structured result, or null when the tool gives none
 * @param isError whether the tool reports a failure (its content says what went wrong)
 * @param json the result as the server sent it (with {@code _meta} and any other field)
 */
public record ToolResult(
    List<JsonNode> content, JsonNode structuredContent, boolean isError, JsonNode json) {

  public ToolResult {
    content = List.copyOf(content);
  }

  /** Reads a {@code tools/call} result. */
  public static ToolResult fromJson(JsonNode result) {
    List<JsonNode> content = new ArrayList<>();
    result.path("content").forEach(content::add);
    JsonNode structured = result.get("structuredContent");
    return new ToolResult(
        content,
        structured == null || structured.isNull() ? null : structured,
        result.path("isError").asBoolean(false),
        result);
  }

  /** The text items of {@link #content()}, one per line; empty when there are none. */
  public String text() {
    return content.stream()
        .filter(item -> "text".equals(item.path("type").asText()))
        .map(item -> item.path("text").asText())
        .collect(Collectors.joining("\n"));
  }
}
