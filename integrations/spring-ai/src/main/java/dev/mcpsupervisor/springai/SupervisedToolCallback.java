package dev.mcpsupervisor.springai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.SupervisorClient;
import dev.mcpsupervisor.actors.call.CallOptions;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.tools.McpTool;
import dev.mcpsupervisor.protocol.tools.ToolResult;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.DefaultToolDefinition;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.ToolExecutionException;

/**
 * One tool of one supervised server as a Spring AI {@link ToolCallback}, named {@code
 * <server>__<tool>} (the server's {@code toolPrefix}, by default its name). A call runs {@code
 * tools/call} through the supervisor, with the server's deadline, retries and restarts, and behaves
 * as Spring AI's {@code SyncMcpToolCallback}: empty input is {@code {}}, {@link ToolContext}
 * entries go into {@code _meta} (except Spring AI's {@code exchange}), a result with {@code
 * isError} and any failure become a {@link ToolExecutionException}, the answer is the content list
 * as JSON.
 *
 * <p>A call holds no lease unless its {@link ToolContext} names a context under {@link
 * #CONTEXT_KEY}: then it runs on that context's lease (so an {@code isolation: context} server
 * keeps that conversation's session), which the application ends with {@code
 * SessionSupervisor.releaseAll(context)}.
 */
public final class SupervisedToolCallback implements ToolCallback {

  /** The {@link ToolContext} key whose value names the supervisor context of the call. */
  public static final String CONTEXT_KEY = "mcp-supervisor.context";

  /** Spring AI's own ToolContext entry that its MCP callbacks keep out of {@code _meta}. */
  private static final String SPRING_AI_EXCHANGE_KEY = "exchange";

  private final SupervisorClient client;
  private final String server;
  private final McpTool tool;
  private final ToolDefinition definition;
  private final ToolCallObserver observer;

  SupervisedToolCallback(
      SupervisorClient client, ServerConfig server, McpTool tool, ToolCallObserver observer) {
    this.client = client;
    this.observer = observer;
    this.server = server.name();
    this.tool = tool;
    this.definition =
        DefaultToolDefinition.builder()
            .name(server.qualifiedName(tool.name()))
            .description(tool.description())
            .inputSchema(tool.inputSchema().toString())
            .build();
  }

  @Override
  public ToolDefinition getToolDefinition() {
    return definition;
  }

  /** The tool's name on its server, without the prefix. */
  public String getOriginalToolName() {
    return tool.name();
  }

  @Override
  public String call(String toolInput) {
    return call(toolInput, null);
  }

  @Override
  public String call(String toolInput, ToolContext toolContext) {
    Map<String, Object> entries = toolContext == null ? Map.of() : toolContext.getContext();
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("name", tool.name());
    params.set("arguments", arguments(toolInput));
    ObjectNode meta = meta(entries);
    if (!meta.isEmpty()) {
      params.set("_meta", meta);
    }
    Object context = entries.get(CONTEXT_KEY);
    CallOptions options =
        context == null ? CallOptions.defaults().withoutLease() : CallOptions.defaults();
    long started = System.nanoTime();
    ToolResult result;
    try {
      result =
          client
              .send(
                  context == null ? SupervisorClient.LEASELESS_CONTEXT : context.toString(),
                  server,
                  McpMethods.TOOLS_CALL,
                  params,
                  options)
              .thenApply(ToolResult::fromJson)
              .toCompletableFuture()
              .join();
    } catch (CompletionException e) {
      observer.completed(server, tool.name(), System.nanoTime() - started, ToolCallObserver.FAILED);
      throw new ToolExecutionException(definition, e.getCause());
    }
    observer.completed(
        server,
        tool.name(),
        System.nanoTime() - started,
        result.isError() ? ToolCallObserver.TOOL_ERROR : ToolCallObserver.SUCCESS);
    if (result.isError()) {
      throw new ToolExecutionException(
          definition, new IllegalStateException("Error calling tool: " + contentJson(result)));
    }
    return contentJson(result);
  }

  private ObjectNode arguments(String toolInput) {
    if (toolInput == null || toolInput.isBlank()) {
      return JsonRpcCodec.emptyObject();
    }
    try {
      JsonNode parsed = JsonRpcCodec.mapper().readTree(toolInput);
      if (parsed instanceof ObjectNode object) {
        return object;
      }
      throw new ToolExecutionException(
          definition,
          new IllegalArgumentException("tool input is not a JSON object: " + toolInput));
    } catch (JsonProcessingException e) {
      throw new ToolExecutionException(definition, e);
    }
  }

  /**
   * The ToolContext entries that belong in {@code _meta}: not Spring AI's exchange, not our context
   * key, no nulls; an entry Jackson cannot turn into JSON (an application object) is left out
   * rather than failing the call.
   */
  private static ObjectNode meta(Map<String, Object> entries) {
    ObjectNode meta = JsonRpcCodec.emptyObject();
    entries.forEach(
        (key, value) -> {
          if (value == null || key.equals(SPRING_AI_EXCHANGE_KEY) || key.equals(CONTEXT_KEY)) {
            return;
          }
          try {
            meta.set(key, JsonRpcCodec.mapper().valueToTree(value));
          } catch (IllegalArgumentException notJson) {
            // not part of what the server can be told
          }
        });
    return meta;
  }

  private static String contentJson(ToolResult result) {
    try {
      return JsonRpcCodec.mapper().writeValueAsString(result.content());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a parsed JSON tree always serializes", e);
    }
  }
}
