package dev.mcpsupervisor.langchain4j;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.exception.ToolArgumentsException;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.mcp.client.McpClient;
import dev.langchain4j.mcp.client.McpGetPromptResult;
import dev.langchain4j.mcp.client.McpPrompt;
import dev.langchain4j.mcp.client.McpReadResourceResult;
import dev.langchain4j.mcp.client.McpResource;
import dev.langchain4j.mcp.client.McpResourceTemplate;
import dev.langchain4j.mcp.client.McpRoot;
import dev.langchain4j.mcp.client.SupervisorResultMapping;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.SupervisorClient;
import dev.mcpsupervisor.actors.SupervisorException;
import dev.mcpsupervisor.actors.call.CallOptions;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.actors.call.ServerRequestHandler;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * LangChain4j's {@link McpClient} for one server of a {@link SessionSupervisor}: hand these to
 * {@code McpToolProvider.builder().mcpClients(...)} in place of {@code DefaultMcpClient}s. There is
 * no transport, health-check loop or reconnect here: the supervisor owns the session, restarts it
 * when it dies and answers from its list cache, so a tool call after a server crash runs on the new
 * session instead of failing.
 *
 * <p>A call made with a chat memory id ({@code @MemoryId}, {@link
 * InvocationContext#chatMemoryId()}) runs for the context {@code String.valueOf(memoryId)} on that
 * context's lease, so an {@code isolation: context} server keeps one conversation's session across
 * turns; {@link #close()} (or {@code supervisor.releaseAll(memoryId)}) ends those leases. Calls
 * without a memory id hold no lease. Results and errors are read by LangChain4j's own readers, as
 * {@code DefaultMcpClient} reads them. Roots given to {@link #setRoots} answer the server's {@code
 * roots/list} during calls; sampling and elicitation requests are refused upstream (-32009).
 */
public final class SupervisedMcpClient implements McpClient {

  /**
   * For {@code McpToolProvider.builder().toolNameMapper(...)}: names each tool {@code
   * <server>__<tool>} (the server's {@code toolPrefix}, by default its name), as the gateway's
   * {@code /mcp} does, so that two servers' tools of the same name do not collide. Other clients'
   * tools get their client's key as the prefix.
   */
  public static final BiFunction<McpClient, ToolSpecification, String> SERVER_PREFIXED_NAMES =
      (client, tool) ->
          client instanceof SupervisedMcpClient supervised
              ? supervised.serverConfig.qualifiedName(tool.name())
              : client.key() + "__" + tool.name();

  private final SupervisorClient client;
  private final String server;
  private final ServerConfig serverConfig;
  private volatile List<McpRoot> roots = List.of();
  private final Set<String> leasedContexts = ConcurrentHashMap.newKeySet();

  private SupervisedMcpClient(SupervisorClient client, ServerConfig serverConfig) {
    this.server = serverConfig.name();
    this.serverConfig = serverConfig;
    this.client = client.answering(new RootsAnswer());
  }

  /** The client for one configured server. */
  public static SupervisedMcpClient of(SessionSupervisor supervisor, String server) {
    ServerConfig serverConfig =
        supervisor
            .config()
            .server(server)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "no server " + server + " in " + supervisor.config().servers().keySet()));
    return new SupervisedMcpClient(SupervisorClient.of(supervisor), serverConfig);
  }

  /** A client per configured server, in configuration order. */
  public static List<McpClient> forEveryServer(SessionSupervisor supervisor) {
    return supervisor.config().servers().keySet().stream()
        .map(server -> (McpClient) of(supervisor, server))
        .toList();
  }

  /** The server's name in the configuration. */
  @Override
  public String key() {
    return server;
  }

  @Override
  public List<ToolSpecification> listTools() {
    return listTools(null);
  }

  @Override
  public List<ToolSpecification> listTools(InvocationContext invocationContext) {
    ArrayNode tools = JsonRpcCodec.mapper().createArrayNode();
    join(client.listTools(server)).forEach(tool -> tools.add(tool.json()));
    return SupervisorResultMapping.toolSpecifications(tools);
  }

  @Override
  public ToolExecutionResult executeTool(ToolExecutionRequest request) {
    return executeTool(request, null);
  }

  @Override
  public ToolExecutionResult executeTool(
      ToolExecutionRequest request, InvocationContext invocationContext) {
    JsonNode arguments = arguments(request.arguments());
    String context = contextOf(invocationContext);
    CallOptions options = CallOptions.defaults();
    if (context == null) {
      context = SupervisorClient.LEASELESS_CONTEXT;
      options = options.withoutLease();
    } else {
      leasedContexts.add(context);
    }
    CompletionStage<JsonNode> result =
        client
            .callTool(context, server, request.name(), arguments, options)
            .thenApply(toolResult -> toolResult.json());
    return SupervisorResultMapping.toolExecutionResult(message(result));
  }

  @Override
  public List<McpResource> listResources() {
    return listResources(null);
  }

  @Override
  public List<McpResource> listResources(InvocationContext invocationContext) {
    return SupervisorResultMapping.resources(
        message(listed(McpMethods.RESOURCES_LIST, "resources")));
  }

  @Override
  public List<McpResourceTemplate> listResourceTemplates() {
    return listResourceTemplates(null);
  }

  @Override
  public List<McpResourceTemplate> listResourceTemplates(InvocationContext invocationContext) {
    return SupervisorResultMapping.resourceTemplates(
        message(listed(McpMethods.RESOURCES_TEMPLATES_LIST, "resourceTemplates")));
  }

  @Override
  public McpReadResourceResult readResource(String uri) {
    return readResource(uri, null);
  }

  @Override
  public McpReadResourceResult readResource(String uri, InvocationContext invocationContext) {
    ObjectNode params = JsonRpcCodec.emptyObject().put("uri", uri);
    return SupervisorResultMapping.resourceContents(
        message(leaseless(McpMethods.RESOURCES_READ, params)));
  }

  @Override
  public List<McpPrompt> listPrompts() {
    return SupervisorResultMapping.prompts(message(listed(McpMethods.PROMPTS_LIST, "prompts")));
  }

  @Override
  public McpGetPromptResult getPrompt(String name, Map<String, Object> arguments) {
    ObjectNode params = JsonRpcCodec.emptyObject().put("name", name);
    params.set(
        "arguments", JsonRpcCodec.mapper().valueToTree(arguments == null ? Map.of() : arguments));
    return SupervisorResultMapping.promptContents(
        message(leaseless(McpMethods.PROMPTS_GET, params)));
  }

  /**
   * Pings the server through the supervisor: fails fast while its circuit is open or it cannot be
   * started, and answers from a live session otherwise (one is started if none is).
   */
  @Override
  public void checkHealth() {
    join(leaseless(McpMethods.PING, JsonRpcCodec.emptyObject()));
  }

  /**
   * The roots this client answers {@code roots/list} with, during its calls, from now on; the
   * server is told with {@code notifications/roots/list_changed} on every session this client's
   * conversations lease.
   */
  @Override
  public void setRoots(List<McpRoot> newRoots) {
    roots = List.copyOf(newRoots);
    for (String context : leasedContexts) {
      client
          .supervisor()
          .notify(
              context,
              server,
              McpMethods.NOTIFICATION_ROOTS_LIST_CHANGED,
              JsonRpcCodec.emptyObject());
    }
  }

  /** Ends the leases this client's conversations took; the supervisor itself goes on. */
  @Override
  public void close() {
    CompletableFuture.allOf(
            leasedContexts.stream()
                .map(context -> client.supervisor().release(context, server).toCompletableFuture())
                .toArray(CompletableFuture[]::new))
        .join();
    leasedContexts.clear();
  }

  private CompletionStage<JsonNode> listed(String method, String itemsField) {
    return client
        .listAll(server, method, itemsField)
        .thenApply(
            items -> {
              ObjectNode result = JsonRpcCodec.emptyObject();
              items.forEach(result.putArray(itemsField)::add);
              return result;
            });
  }

  private CompletionStage<JsonNode> leaseless(String method, JsonNode params) {
    return client.send(
        SupervisorClient.LEASELESS_CONTEXT,
        server,
        method,
        params,
        CallOptions.defaults().withoutLease());
  }

  private static String contextOf(InvocationContext invocationContext) {
    return invocationContext == null || invocationContext.chatMemoryId() == null
        ? null
        : String.valueOf(invocationContext.chatMemoryId());
  }

  /** As DefaultMcpClient reads them: blank means no arguments, anything else must be an object. */
  private static JsonNode arguments(String text) {
    if (text == null || text.isBlank()) {
      return JsonRpcCodec.emptyObject();
    }
    try {
      return JsonRpcCodec.mapper().readValue(text, ObjectNode.class);
    } catch (JsonProcessingException e) {
      throw new ToolArgumentsException(e);
    }
  }

  /**
   * The call's answer as the JSON-RPC response LangChain4j's readers take: {@code {"result": ...}},
   * or {@code {"error": {code, message, data}}} for a supervisor or upstream error.
   */
  private static JsonNode message(CompletionStage<JsonNode> result) {
    ObjectNode message = JsonRpcCodec.emptyObject();
    try {
      message.set("result", result.toCompletableFuture().join());
    } catch (CompletionException e) {
      if (!(e.getCause() instanceof SupervisorException failure)) {
        throw e;
      }
      JsonRpcError error = failure.error();
      ObjectNode errorNode = message.putObject("error");
      errorNode.put("code", error.code());
      errorNode.put("message", error.message());
      if (error.data() != null) {
        errorNode.set("data", error.data());
      }
    }
    return message;
  }

  /** Waits for a stage, rethrowing a supervisor error as itself rather than wrapped. */
  private static <T> T join(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  /** Answers roots/list from {@link #roots}; declares nothing until roots are set. */
  private final class RootsAnswer implements ServerRequestHandler {
    @Override
    public Set<CallOptions.ClientCapability> capabilities() {
      return roots.isEmpty() ? Set.of() : Set.of(CallOptions.ClientCapability.ROOTS);
    }

    @Override
    public CompletionStage<JsonNode> answer(String server, CallOutcome.InputRequest request) {
      ObjectNode result = JsonRpcCodec.emptyObject();
      ArrayNode list = result.putArray("roots");
      for (McpRoot root : roots) {
        ObjectNode entry = list.addObject().put("uri", root.uri());
        if (root.name() != null) {
          entry.put("name", root.name());
        }
      }
      return CompletableFuture.completedFuture(result);
    }
  }
}
