package dev.mcpsupervisor.langchain4j;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.exception.ToolArgumentsException;
import dev.langchain4j.exception.ToolExecutionException;
import dev.langchain4j.mcp.client.McpBlobResourceContents;
import dev.langchain4j.mcp.client.McpException;
import dev.langchain4j.mcp.client.McpGetPromptResult;
import dev.langchain4j.mcp.client.McpPrompt;
import dev.langchain4j.mcp.client.McpReadResourceResult;
import dev.langchain4j.mcp.client.McpResource;
import dev.langchain4j.mcp.client.McpResourceContents;
import dev.langchain4j.mcp.client.McpResourceTemplate;
import dev.langchain4j.mcp.client.McpTextResourceContents;
import dev.langchain4j.mcp.client.McpToolMetadataKeys;
import dev.langchain4j.model.chat.request.json.JsonAnyOfSchema;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonBooleanSchema;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonIntegerSchema;
import dev.langchain4j.model.chat.request.json.JsonNullSchema;
import dev.langchain4j.model.chat.request.json.JsonNumberSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

/**
 * MCP results as LangChain4j's public types, read as {@code DefaultMcpClient} reads them (same
 * schemas, text and exceptions), on LangChain4j's public API only: the JSON-schema element
 * builders, {@link ToolExecutionResult}'s builder, and the {@code Mcp*} types' public (Jackson)
 * constructors.
 */
final class McpResults {

  /** -32602: DefaultMcpClient makes it a {@link ToolArgumentsException}. */
  private static final int INVALID_PARAMS = -32602;

  /** As DefaultMcpClient's: fields a later MCP revision adds do not fail a read. */
  private static final ObjectMapper MAPPER =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private McpResults() {}

  /** One MCP {@code Tool} as a tool specification: its input schema, annotations and _meta. */
  static ToolSpecification toolSpecification(JsonNode tool) {
    ToolSpecification.Builder builder = ToolSpecification.builder().name(tool.get("name").asText());
    if (tool.has("description")) {
      builder.description(tool.get("description").asText());
    }
    builder.parameters((JsonObjectSchema) schema(tool.path("inputSchema")));
    JsonNode annotations = tool.path("annotations");
    for (String hint :
        List.of(
            McpToolMetadataKeys.DESTRUCTIVE_HINT,
            McpToolMetadataKeys.IDEMPOTENT_HINT,
            McpToolMetadataKeys.OPEN_WORLD_HINT,
            McpToolMetadataKeys.READ_ONLY_HINT)) {
      if (annotations.has(hint)) {
        builder.addMetadata(hint, annotations.get(hint).asBoolean());
      }
    }
    if (annotations.has("title")) {
      builder.addMetadata(McpToolMetadataKeys.TITLE_ANNOTATION, annotations.get("title").asText());
    }
    tool.path("_meta")
        .properties()
        .forEach(
            entry ->
                builder.addMetadata(
                    entry.getKey(), MAPPER.convertValue(entry.getValue(), Object.class)));
    if (tool.has("title")) {
      builder.addMetadata(McpToolMetadataKeys.TITLE, tool.get("title").asText());
    }
    return builder.build();
  }

  /** A JSON schema as LangChain4j's element; no {@code type} means an object. */
  static JsonSchemaElement schema(JsonNode node) {
    String description = node.has("description") ? node.get("description").asText() : null;
    if (node.has("anyOf")) {
      return JsonAnyOfSchema.builder()
          .description(description)
          .anyOf(elements(node.get("anyOf"), McpResults::schema))
          .build();
    }
    JsonNode type = node.get("type");
    if (type != null && type.isArray()) {
      // "type": ["integer", "null"] is anyOf the plain types
      return JsonAnyOfSchema.builder()
          .description(description)
          .anyOf(elements(type, each -> plain(each.asText(), null)))
          .build();
    }
    String name = type == null ? "object" : type.asText();
    return switch (name) {
      case "object" -> {
        JsonObjectSchema.Builder object = JsonObjectSchema.builder().description(description);
        node.path("properties")
            .properties()
            .forEach(
                property -> object.addProperty(property.getKey(), schema(property.getValue())));
        if (node.has("required")) {
          object.required(texts(node.get("required")));
        }
        if (node.has("additionalProperties")) {
          object.additionalProperties(node.get("additionalProperties").asBoolean(false));
        }
        yield object.build();
      }
      case "string" ->
          node.has("enum")
              ? JsonEnumSchema.builder()
                  .description(description)
                  .enumValues(texts(node.get("enum")))
                  .build()
              : plain(name, description);
      case "array" -> {
        JsonArraySchema.Builder array = JsonArraySchema.builder().description(description);
        JsonNode items = node.get("items");
        // no items, or an empty array of them, means any item ("items": {})
        if (items != null && !(items.isArray() && items.isEmpty())) {
          array.items(schema(items));
        }
        yield array.build();
      }
      default -> plain(name, description);
    };
  }

  private static JsonSchemaElement plain(String type, String description) {
    return switch (type) {
      case "string" -> JsonStringSchema.builder().description(description).build();
      case "number" -> JsonNumberSchema.builder().description(description).build();
      case "integer" -> JsonIntegerSchema.builder().description(description).build();
      case "boolean" -> JsonBooleanSchema.builder().description(description).build();
      case "array" -> JsonArraySchema.builder().description(description).build();
      case "object" -> JsonObjectSchema.builder().description(description).build();
      case "null" -> new JsonNullSchema();
      default -> throw new IllegalArgumentException("Unknown element type: " + type);
    };
  }

  /**
   * A {@code CallToolResult}: structured content wins over content; a tool's {@code isError} is a
   * {@link ToolExecutionException} with its text, as DefaultMcpClient throws it.
   */
  static ToolExecutionResult toolResult(JsonNode result) {
    boolean isError = result.path("isError").asBoolean(false);
    JsonNode structured = result.get("structuredContent");
    if (structured != null && !structured.isNull()) {
      if (isError) {
        throw new ToolExecutionException(structured.toString());
      }
      return ToolExecutionResult.builder()
          .result(MAPPER.convertValue(structured, Object.class))
          .resultText(structured.toString())
          .isError(false)
          .build();
    }
    if (!result.has("content")) {
      throw new IllegalStateException("Result does not contain 'content' element: " + result);
    }
    String text =
        StreamSupport.stream(result.get("content").spliterator(), false)
            .map(McpResults::text)
            .collect(Collectors.joining("\n"));
    if (isError) {
      throw new ToolExecutionException(text);
    }
    return ToolExecutionResult.builder().isError(false).resultText(text).build();
  }

  /** A tool call's JSON-RPC error as DefaultMcpClient throws it. */
  static RuntimeException toolError(JsonRpcError error) {
    return error.code() == INVALID_PARAMS
        ? new ToolArgumentsException(error.message(), error.code())
        : new ToolExecutionException(error.message(), error.code());
  }

  /** Any other request's JSON-RPC error as DefaultMcpClient throws it. */
  static McpException error(JsonRpcError error) {
    return new McpException(error.code(), error.message());
  }

  static List<McpResource> resources(List<JsonNode> items) {
    return items.stream().map(item -> MAPPER.convertValue(item, McpResource.class)).toList();
  }

  static List<McpResourceTemplate> resourceTemplates(List<JsonNode> items) {
    return items.stream()
        .map(item -> MAPPER.convertValue(item, McpResourceTemplate.class))
        .toList();
  }

  /**
   * A {@code ReadResourceResult}: each text or blob content, others skipped as DefaultMcpClient.
   */
  static McpReadResourceResult resourceContents(JsonNode result) {
    List<McpResourceContents> contents = new ArrayList<>();
    for (JsonNode content : result.path("contents")) {
      String uri = content.path("uri").asText();
      String mimeType = content.hasNonNull("mimeType") ? content.get("mimeType").asText() : null;
      if (content.has("text")) {
        contents.add(new McpTextResourceContents(uri, content.get("text").asText(), mimeType));
      } else if (content.has("blob")) {
        contents.add(new McpBlobResourceContents(uri, content.get("blob").asText(), mimeType));
      }
    }
    return new McpReadResourceResult(contents);
  }

  static List<McpPrompt> prompts(List<JsonNode> items) {
    return items.stream().map(item -> MAPPER.convertValue(item, McpPrompt.class)).toList();
  }

  static McpGetPromptResult promptContents(JsonNode result) {
    return MAPPER.convertValue(result, McpGetPromptResult.class);
  }

  /**
   * One content item as text: DefaultMcpClient before 1.15 failed on anything but text; an image,
   * audio or resource item here is named by its type and MIME type so the model still sees the
   * rest.
   */
  static String text(JsonNode content) {
    String type = content.path("type").asText();
    if (type.equals("text")) {
      return content.path("text").asText();
    }
    String mimeType =
        content.path("mimeType").asText(content.path("resource").path("mimeType").asText(""));
    return "[" + type + (mimeType.isEmpty() ? "" : " " + mimeType) + "]";
  }

  private static String[] texts(JsonNode array) {
    return StreamSupport.stream(array.spliterator(), false)
        .map(JsonNode::asText)
        .toArray(String[]::new);
  }

  private static JsonSchemaElement[] elements(
      JsonNode array, Function<JsonNode, JsonSchemaElement> element) {
    return StreamSupport.stream(array.spliterator(), false)
        .map(element)
        .toArray(JsonSchemaElement[]::new);
  }
}
