package dev.mcpsupervisor.langchain4j;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
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
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.SupervisorClient;
import dev.mcpsupervisor.actors.SupervisorException;
import dev.mcpsupervisor.actors.call.CallOptions;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.tools.McpTool;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * without a memory id hold no lease. Results and errors read as {@code DefaultMcpClient} reads
 * them.
 *
 * <p>Server requests during calls: roots given to {@link #setRoots} answer {@code roots/list};
 * sampling and elicitation are answered by the handlers given to the {@link #builder} ({@link
 * Builder#sampling}, {@link Builder#elicitation}) and refused upstream (-32009) without them. A
 * client with neither leaves the server's interactive tools ({@link
 * SupervisorClient#interactiveTools}: declared, or learned from a call) out of {@link #listTools},
 * since they could only fail; {@link Builder#keepInteractiveTools()} offers them anyway.
 *
 * <p>Built on LangChain4j's public API only; runs with langchain4j-mcp 1.11 and every later 1.x,
 * checked when the client is built.
 */
public final class SupervisedMcpClient implements McpClient {

  private static final Logger log = LoggerFactory.getLogger(SupervisedMcpClient.class);

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
  private final boolean offersInteractiveTools;
  private volatile List<McpRoot> roots = List.of();
  private final Set<String> leasedContexts = ConcurrentHashMap.newKeySet();

  /** The interactive tools left out so far, each logged the first time. */
  private final Set<String> leftOut = ConcurrentHashMap.newKeySet();

  private SupervisedMcpClient(Builder builder, ServerConfig serverConfig) {
    this.server = serverConfig.name();
    this.serverConfig = serverConfig;
    ServerRequests serverRequests =
        new ServerRequests(() -> roots, builder.sampling, builder.elicitation, builder.blocking);
    this.offersInteractiveTools =
        builder.keepInteractiveTools || serverRequests.answersInteractiveTools();
    this.client = SupervisorClient.of(builder.supervisor).answering(serverRequests);
  }

  /** A builder for clients with server-request handlers or options of their own. */
  public static Builder builder(SessionSupervisor supervisor) {
    return new Builder(supervisor);
  }

  /** The client for one configured server, without sampling or elicitation handlers. */
  public static SupervisedMcpClient of(SessionSupervisor supervisor, String server) {
    return builder(supervisor).build(server);
  }

  /** A client per configured server, in configuration order, without handlers. */
  public static List<McpClient> forEveryServer(SessionSupervisor supervisor) {
    return builder(supervisor).forEveryServer();
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
    List<McpTool> tools = join(client.listTools(server));
    Set<String> interactive =
        offersInteractiveTools ? Set.of() : join(client.interactiveTools(server));
    List<ToolSpecification> offered = new ArrayList<>();
    for (McpTool tool : tools) {
      if (!interactive.contains(tool.name())) {
        offered.add(McpResults.toolSpecification(tool.json()));
      } else if (leftOut.add(tool.name())) {
        log.info(
            "{}: tool {} left out of LangChain4j's tools: it asks the client for sampling or"
                + " elicitation and no handler answers (SupervisedMcpClient.builder(...).sampling,"
                + " .elicitation or .keepInteractiveTools())",
            server,
            tool.name());
      }
    }
    return offered;
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
    JsonNode result =
        join(
            client
                .callTool(context, server, request.name(), arguments, options)
                .thenApply(toolResult -> toolResult.json()),
            McpResults::toolError);
    return McpResults.toolResult(result);
  }

  @Override
  public List<McpResource> listResources() {
    return listResources(null);
  }

  @Override
  public List<McpResource> listResources(InvocationContext invocationContext) {
    return McpResults.resources(listed(McpMethods.RESOURCES_LIST, "resources"));
  }

  @Override
  public List<McpResourceTemplate> listResourceTemplates() {
    return listResourceTemplates(null);
  }

  @Override
  public List<McpResourceTemplate> listResourceTemplates(InvocationContext invocationContext) {
    return McpResults.resourceTemplates(
        listed(McpMethods.RESOURCES_TEMPLATES_LIST, "resourceTemplates"));
  }

  @Override
  public McpReadResourceResult readResource(String uri) {
    return readResource(uri, null);
  }

  @Override
  public McpReadResourceResult readResource(String uri, InvocationContext invocationContext) {
    ObjectNode params = JsonRpcCodec.emptyObject().put("uri", uri);
    return McpResults.resourceContents(leaseless(McpMethods.RESOURCES_READ, params));
  }

  /**
   * Subscribes the server key to the resource (langchain4j-mcp 1.15 and later): the supervisor
   * keeps the subscription across restarts and hands {@code notifications/resources/updated} to its
   * notification listeners.
   */
  public void subscribeToResource(String uri) {
    leaseless(McpMethods.RESOURCES_SUBSCRIBE, JsonRpcCodec.emptyObject().put("uri", uri));
  }

  /** Ends a {@link #subscribeToResource} (langchain4j-mcp 1.15 and later). */
  public void unsubscribeFromResource(String uri) {
    leaseless(McpMethods.RESOURCES_UNSUBSCRIBE, JsonRpcCodec.emptyObject().put("uri", uri));
  }

  @Override
  public List<McpPrompt> listPrompts() {
    return McpResults.prompts(listed(McpMethods.PROMPTS_LIST, "prompts"));
  }

  @Override
  public McpGetPromptResult getPrompt(String name, Map<String, Object> arguments) {
    ObjectNode params = JsonRpcCodec.emptyObject().put("name", name);
    params.set(
        "arguments", JsonRpcCodec.mapper().valueToTree(arguments == null ? Map.of() : arguments));
    return McpResults.promptContents(leaseless(McpMethods.PROMPTS_GET, params));
  }

  /**
   * Pings the server through the supervisor: fails fast while its circuit is open or it cannot be
   * started, and answers from a live session otherwise (one is started if none is).
   */
  @Override
  public void checkHealth() {
    leaseless(McpMethods.PING, JsonRpcCodec.emptyObject());
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

  private List<JsonNode> listed(String method, String itemsField) {
    return join(client.listAll(server, method, itemsField), McpResults::error);
  }

  private JsonNode leaseless(String method, JsonNode params) {
    return join(
        client.send(
            SupervisorClient.LEASELESS_CONTEXT,
            server,
            method,
            params,
            CallOptions.defaults().withoutLease()),
        McpResults::error);
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
   * Waits for a stage; a JSON-RPC error (the supervisor's or the upstream's) is thrown as {@code
   * asLangChain4j} makes it, any other failure as itself rather than wrapped.
   */
  private static <T> T join(
      CompletionStage<T> stage, Function<JsonRpcError, RuntimeException> asLangChain4j) {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof SupervisorException failure) {
        throw asLangChain4j.apply(failure.error());
      }
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  /** {@link #join(CompletionStage, Function)} for the supervisor's own answers (lists of tools). */
  private static <T> T join(CompletionStage<T> stage) {
    return join(stage, McpResults::error);
  }

  /**
   * Clients of one supervisor with the same handlers and options: {@link #build} one server's,
   * {@link #forEveryServer()} all of them.
   */
  public static final class Builder {

    private final SessionSupervisor supervisor;
    private ChatModel sampling;
    private ElicitationHandler elicitation;
    private boolean keepInteractiveTools;
    private Executor blocking = ForkJoinPool.commonPool();

    private Builder(SessionSupervisor supervisor) {
      this.supervisor = Objects.requireNonNull(supervisor, "supervisor");
    }

    /**
     * Answers the server's {@code sampling/createMessage} with this model (the application's own,
     * so its key, quota and logging apply): the request's messages, system prompt, max tokens,
     * temperature and stop sequences as one chat request; the answer's text back.
     */
    public Builder sampling(ChatModel model) {
      this.sampling = Objects.requireNonNull(model, "model");
      return this;
    }

    /** Answers the server's {@code elicitation/create} with this handler (it asks the user). */
    public Builder elicitation(ElicitationHandler handler) {
      this.elicitation = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /**
     * Offers the server's interactive tools to the model even without a sampling or elicitation
     * handler (each call of one fails with -32009 unless its server needs no answer after all).
     */
    public Builder keepInteractiveTools() {
      this.keepInteractiveTools = true;
      return this;
    }

    /**
     * Where the model and the elicitation handler run (they may block); by default the common
     * fork-join pool.
     */
    public Builder executor(Executor executor) {
      this.blocking = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * The client for one configured server.
     *
     * @throws IllegalStateException when the langchain4j-mcp on the class path is not supported
     * @throws IllegalArgumentException when the server is not configured
     */
    public SupervisedMcpClient build(String server) {
      LangChain4jVersion.requireSupported();
      ServerConfig serverConfig =
          supervisor
              .config()
              .server(server)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "no server " + server + " in " + supervisor.config().servers().keySet()));
      return new SupervisedMcpClient(this, serverConfig);
    }

    /** A client per configured server, in configuration order. */
    public List<McpClient> forEveryServer() {
      return supervisor.config().servers().keySet().stream()
          .map(server -> (McpClient) build(server))
          .toList();
    }
  }
}
