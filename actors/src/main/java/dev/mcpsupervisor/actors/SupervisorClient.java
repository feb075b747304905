package dev.mcpsupervisor.actors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.call.CallOptions;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.actors.call.ServerRequestHandler;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.protocol.tools.McpTool;
import dev.mcpsupervisor.protocol.tools.ToolResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Typed MCP calls over a {@link SessionSupervisor}: {@link #listTools}, {@link #callTool} and, for
 * any other method, {@link #send}. Each is one {@link SessionSupervisor#call} underneath, with its
 * deadline, retries, restarts and circuit breaker. A JSON-RPC error (the upstream's, or the
 * supervisor's: unknown server, timeout, session lost, circuit open) fails the stage with a {@link
 * SupervisorException} carrying it; a tool's own failure is a {@link ToolResult} with {@code
 * isError}. Immutable and thread-safe: one per supervisor serves every caller.
 */
public final class SupervisorClient {

  /**
   * A context for calls that hold no lease ({@link #listTools}, calls with {@link
   * CallOptions#withoutLease()}); any other name does as well.
   */
  public static final String LEASELESS_CONTEXT = "supervisor-client";

  /** Numbers the contexts of leaseless calls, see {@link #send}. */
  private static final AtomicLong leaselessCalls = new AtomicLong();

  private final SessionSupervisor supervisor;
  private final ServerRequestHandler serverRequests;

  private SupervisorClient(SessionSupervisor supervisor, ServerRequestHandler serverRequests) {
    this.supervisor = Objects.requireNonNull(supervisor, "supervisor");
    this.serverRequests = serverRequests;
  }

  /** A client that answers no server request (each is refused upstream with -32009). */
  public static SupervisorClient of(SessionSupervisor supervisor) {
    return new SupervisorClient(supervisor, null);
  }

  /** This client with a handler for sampling, elicitation or roots requests during its calls. */
  public SupervisorClient answering(ServerRequestHandler handler) {
    return new SupervisorClient(supervisor, Objects.requireNonNull(handler, "handler"));
  }

  public SessionSupervisor supervisor() {
    return supervisor;
  }

  /**
   * Every tool of the server (all pages), answered from the server key's list cache, which the
   * server's {@code notifications/tools/list_changed} clears. Holds no lease.
   */
  public CompletionStage<List<McpTool>> listTools(String server) {
    return listAll(server, McpMethods.TOOLS_LIST, "tools")
        .thenApply(tools -> tools.stream().map(McpTool::fromJson).toList());
  }

  /**
   * The server's tools known to send requests of their own to the client during a call (sampling,
   * elicitation): those its config declares ({@code interactiveTools}) and those a call has shown
   * since its key last started. Where nobody answers such requests (no {@link
   * ServerRequestHandler}, no listener) these tools can only fail, so a framework's tool list
   * leaves them out. Sorted.
   */
  public CompletionStage<SortedSet<String>> interactiveTools(String server) {
    SortedSet<String> declared = new TreeSet<>();
    supervisor.config().server(server).ifPresent(c -> declared.addAll(c.interactiveTools()));
    return supervisor
        .snapshot()
        .thenApply(
            snapshot -> {
              snapshot.keys().stream()
                  .filter(key -> key.server().equals(server))
                  .forEach(key -> declared.addAll(key.interactiveTools()));
              return declared;
            });
  }

  /**
   * Calls a tool for the context, on the context's lease of the server (taken on first use, so an
   * {@code isolation: context} server keeps the context's session across calls; end it with {@link
   * SessionSupervisor#releaseAll} when the context's run is over).
   *
   * @param arguments the tool's arguments (anything Jackson turns into a JSON object; null for
   *     none)
   */
  public CompletionStage<ToolResult> callTool(
      String context, String server, String tool, Map<String, ?> arguments) {
    JsonNode args =
        arguments == null
            ? JsonRpcCodec.emptyObject()
            : JsonRpcCodec.mapper().valueToTree(arguments);
    return callTool(context, server, tool, args, CallOptions.defaults());
  }

  /**
   * {@link #callTool(String, String, String, Map)} with arguments as JSON and options of its own.
   */
  public CompletionStage<ToolResult> callTool(
      String context, String server, String tool, JsonNode arguments, CallOptions options) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("name", tool);
    params.set("arguments", arguments == null ? JsonRpcCodec.emptyObject() : arguments);
    return send(context, server, McpMethods.TOOLS_CALL, params, options)
        .thenApply(ToolResult::fromJson);
  }

  /**
   * Sends any request and completes with its result. Server requests during the call go to this
   * client's {@link ServerRequestHandler} (its capabilities are added to the options).
   *
   * <p>A leaseless call runs under a context of its own, {@code <context>#<n>}: calls sharing one
   * context share its session on an {@code isolation: context} server, where an untagged stdio
   * server request could be attributed to the wrong call.
   */
  public CompletionStage<JsonNode> send(
      String context, String server, String method, JsonNode params, CallOptions options) {
    String callContext =
        options.leaseless() ? context + "#" + leaselessCalls.incrementAndGet() : context;
    CallOptions declared =
        serverRequests == null
            ? options
            : options.withCapabilities(
                serverRequests.capabilities().toArray(CallOptions.ClientCapability[]::new));
    return untilComplete(server, supervisor.call(callContext, server, method, params, declared))
        .thenApply(SupervisorClient::resultOrThrow);
  }

  /**
   * Every item of a paged list ({@code tools/list} → {@code tools}, {@code resources/list} → {@code
   * resources}, {@code prompts/list} → {@code prompts}...), following {@code nextCursor}. Holds no
   * lease.
   */
  public CompletionStage<List<JsonNode>> listAll(String server, String method, String itemsField) {
    return nextPage(server, method, itemsField, null, new ArrayList<>());
  }

  private CompletionStage<List<JsonNode>> nextPage(
      String server, String method, String itemsField, String cursor, List<JsonNode> items) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    if (cursor != null) {
      params.put("cursor", cursor);
    }
    return send(LEASELESS_CONTEXT, server, method, params, CallOptions.defaults().withoutLease())
        .thenCompose(
            page -> {
              page.path(itemsField).forEach(items::add);
              String next = page.path("nextCursor").asText("");
              return next.isEmpty() || next.equals(cursor)
                  ? CompletableFuture.completedFuture(items)
                  : nextPage(server, method, itemsField, next, items);
            });
  }

  private CompletionStage<JsonRpcResponse> untilComplete(
      String server, CompletionStage<CallOutcome> outcome) {
    return outcome.thenCompose(
        next -> {
          if (next instanceof CallOutcome.Complete complete) {
            return CompletableFuture.completedFuture(complete.response());
          }
          return untilComplete(server, answer(server, (CallOutcome.InputRequired) next));
        });
  }

  /** Answers every request of the round; a handler's failure cancels the call with that failure. */
  private CompletionStage<CallOutcome> answer(String server, CallOutcome.InputRequired round) {
    if (serverRequests == null) {
      // only a caller that declared capabilities in its own options gets here
      return round
          .cancel()
          .thenCompose(
              cancelled ->
                  CompletableFuture.failedFuture(
                      new SupervisorException(
                          SupervisorErrors.noClient(
                              server,
                              String.join(", ", methods(round)),
                              "the SupervisorClient has no ServerRequestHandler"))));
    }
    Map<String, JsonNode> answers = new ConcurrentHashMap<>();
    List<CompletableFuture<Void>> pending = new ArrayList<>();
    round
        .inputRequests()
        .forEach(
            (key, request) ->
                pending.add(
                    serverRequests
                        .answer(server, request)
                        .toCompletableFuture()
                        .thenAccept(result -> answers.put(key, result))));
    return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
        .handle((done, failure) -> failure)
        .thenCompose(
            failure -> {
              if (failure == null) {
                return round.answer(Map.copyOf(answers));
              }
              return round
                  .cancel()
                  .thenCompose(cancelled -> CompletableFuture.failedFuture(failure));
            });
  }

  private static List<String> methods(CallOutcome.InputRequired round) {
    return round.inputRequests().values().stream()
        .map(CallOutcome.InputRequest::method)
        .distinct()
        .toList();
  }

  private static JsonNode resultOrThrow(JsonRpcResponse response) {
    if (response.isError()) {
      throw new SupervisorException(response.error());
    }
    return response.result();
  }
}
