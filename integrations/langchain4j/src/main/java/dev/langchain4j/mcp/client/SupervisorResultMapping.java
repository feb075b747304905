package dev.langchain4j.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.service.tool.ToolExecutionResult;
import java.util.List;

/**
 * LangChain4j's own readers of MCP results, which are package-private: through them a tool listed
 * or called via the supervisor looks and answers exactly as through {@link DefaultMcpClient} (same
 * schemas, same text, same errors). This package name is why the class lives here; it holds no
 * logic of its own. Public only for {@code dev.mcpsupervisor.langchain4j.SupervisedMcpClient}.
 */
public final class SupervisorResultMapping {

  private SupervisorResultMapping() {}

  public static List<ToolSpecification> toolSpecifications(ArrayNode tools) {
    return ToolSpecificationHelper.toolSpecificationListFromMcpResponse(tools);
  }

  /**
   * {@code message} is the JSON-RPC response: {@code {"result": ...}} or {@code {"error": ...}}.
   */
  public static ToolExecutionResult toolExecutionResult(JsonNode message) {
    return ToolExecutionHelper.extractResult(message, false);
  }

  // each {@code message} below is a whole JSON-RPC response, as DefaultMcpClient passes it: an
  // {@code error} member becomes the McpException DefaultMcpClient throws

  public static List<McpResource> resources(JsonNode message) {
    return ResourcesHelper.parseResourceRefs(message);
  }

  public static List<McpResourceTemplate> resourceTemplates(JsonNode message) {
    return ResourcesHelper.parseResourceTemplateRefs(message);
  }

  public static McpReadResourceResult resourceContents(JsonNode message) {
    return ResourcesHelper.parseResourceContents(message);
  }

  public static List<McpPrompt> prompts(JsonNode message) {
    return PromptsHelper.parsePromptRefs(message);
  }

  public static McpGetPromptResult promptContents(JsonNode message) {
    return PromptsHelper.parsePromptContents(message);
  }
}
