package dev.mcpsupervisor.http.endpoint;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.METHOD_NOT_FOUND;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.RESOURCE_NOT_FOUND;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ParamHeaders;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.upstream.Failures;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /mcp}: every server in force behind one MCP endpoint. Which servers, and their prefixes,
 * each request reads from the configuration in force ({@link InForce}): a session opened before a
 * reload lists and calls the servers of after it.
 *
 * <ul>
 *   <li>initialize asks every server in parallel (bounded by {@code upstreamInitializeTimeout}) and
 *       answers the gateway's own server info with the union of the capabilities of those that
 *       answered, tools, prompts and resources always declared with {@code listChanged} (a reload
 *       may add a server that has them); a server that is down is left out with a one-line log, and
 *       later calls still try it.
 *   <li>tools and prompts are published as {@code <toolPrefix>__<name>} ({@link ServerNamespace});
 *       calls and gets are dispatched by the prefix.
 *   <li>Resource URIs are passed through unchanged (they are the servers' own, and clients may have
 *       them from elsewhere, e.g. tool results). A read, subscribe or completion goes to the server
 *       that listed the URI, or whose template's literal prefix matches it, in this session's
 *       resources/list and templates/list answers; a URI the session never saw listed is tried on
 *       each server with resources in file order, and the first that answers owns it from then on.
 *       When two servers list the same URI, the first in file order owns it.
 *   <li>Lists are complete: each server's pages are followed ({@code maxListPages} at most) and
 *       merged into one answer without {@code nextCursor}, servers in file order, each in its own
 *       order; a server that fails or is slower than {@code aggregatedListTimeout} is left out of
 *       that answer. The pages come from each server's list cache (in the supervisor), and the
 *       answer's {@code ttlMs} is the shortest lifetime among them ({@link AggregatedLists}).
 * </ul>
 */
public final class AggregatedEndpoint implements McpEndpoint {

  public static final String PATH = "/mcp";
  public static final String SERVER_NAME = "mcp-supervisor";

  /** Capabilities the aggregated endpoint can dispatch; others (e.g. tasks) are not advertised. */
  private static final List<String> DISPATCHED_CAPABILITIES =
      List.of("tools", "prompts", "resources", "logging", "completions");

  /** The lists it serves, declared always and as changing: a reload changes its servers. */
  private static final List<String> LISTS = List.of("tools", "prompts", "resources");

  private static final Logger log = LoggerFactory.getLogger(AggregatedEndpoint.class);

  /** The namespace in force for the session or request: read once by each request. */
  private final Supplier<ServerNamespace> namespaces;

  private final GatewaySettings settings;
  private final String version;
  private final AggregatedLists lists;
  private final ToolSchemas schemas;

  AggregatedEndpoint(
      Supplier<ServerNamespace> namespaces,
      GatewaySettings settings,
      String version,
      ToolSchemas schemas) {
    this.namespaces = namespaces;
    this.settings = settings;
    this.version = version;
    this.lists = new AggregatedLists(settings);
    this.schemas = schemas;
  }

  /** The same endpoint over the servers {@code namespaces} gives (an identity's allow-list). */
  AggregatedEndpoint over(Supplier<ServerNamespace> narrowed) {
    return new AggregatedEndpoint(narrowed, settings, version, schemas);
  }

  @Override
  public String path() {
    return PATH;
  }

  @Override
  public List<String> servers() {
    return namespaces.get().servers();
  }

  // ------------------------------------------------------------------------------------ initialize

  @Override
  public CompletionStage<Outcome> initialize(UpstreamCalls calls, String protocolVersion) {
    Map<String, CompletableFuture<JsonNode>> answers = new LinkedHashMap<>();
    for (String server : namespaces.get().servers()) {
      answers.put(
          server,
          calls
              .acquire(server)
              .toCompletableFuture()
              .orTimeout(settings.upstreamInitializeTimeout().toMillis(), TimeUnit.MILLISECONDS)
              .handle(
                  (result, failure) -> {
                    if (failure != null) {
                      log.warn(
                          "session {}: server {} left out of /mcp: {}",
                          SessionIds.redact(calls.context()),
                          server,
                          Failures.describe(failure));
                      return null;
                    }
                    return result;
                  }));
    }
    return CompletableFuture.allOf(answers.values().toArray(CompletableFuture[]::new))
        .thenApply(
            allDone -> {
              Map<String, JsonNode> upstreams = new LinkedHashMap<>();
              answers.forEach(
                  (server, answer) -> {
                    JsonNode result = answer.join();
                    if (result != null) {
                      upstreams.put(server, result);
                    }
                  });
              return new Outcome.Initialized(
                  initializeResult(protocolVersion, upstreams), upstreams);
            });
  }

  private ObjectNode initializeResult(String protocolVersion, Map<String, JsonNode> upstreams) {
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.put("protocolVersion", protocolVersion);
    result.set(
        "capabilities",
        CapabilityUnion.withChangingLists(
            CapabilityUnion.of(upstreams.values(), DISPATCHED_CAPABILITIES), LISTS));
    ObjectNode serverInfo = result.putObject("serverInfo");
    serverInfo.put("name", SERVER_NAME);
    serverInfo.put("version", version);
    List<String> instructions = new ArrayList<>();
    upstreams.forEach(
        (server, init) -> {
          String text = init.path("instructions").asText("");
          if (!text.isBlank()) {
            instructions.add(server + ": " + text.strip());
          }
        });
    if (!instructions.isEmpty()) {
      result.put("instructions", String.join("\n\n", instructions));
    }
    return result;
  }

  // -------------------------------------------------------------------------------------- requests

  @Override
  public CompletionStage<Outcome> handle(JsonRpcRequest request, View view, UpstreamCalls calls) {
    return switch (request.method()) {
      case McpMethods.TOOLS_LIST -> listNamed(request, view, calls, "tools", "tools");
      case McpMethods.PROMPTS_LIST -> listNamed(request, view, calls, "prompts", "prompts");
      case McpMethods.TOOLS_CALL -> dispatchByName(request, calls, "tool");
      case McpMethods.PROMPTS_GET -> dispatchByName(request, calls, "prompt");
      case McpMethods.RESOURCES_LIST -> listResources(request, view, calls, "resources", "uri");
      case McpMethods.RESOURCES_TEMPLATES_LIST ->
          listResources(request, view, calls, "resourceTemplates", "uriTemplate");
      case McpMethods.RESOURCES_READ, McpMethods.RESOURCES_SUBSCRIBE ->
          dispatchByUri(request, view, calls);
      case McpMethods.COMPLETION_COMPLETE -> complete(request, view, calls);
      default ->
          done(
              new Outcome.Failure(
                  new JsonRpcError(METHOD_NOT_FOUND, "Method not found: " + request.method())));
    };
  }

  @Override
  public CompletionStage<ParamHeaders.Declarations> toolDeclarations(
      String name, UpstreamCalls calls) {
    Optional<ServerNamespace.Qualified> target = namespaces.get().resolve(name);
    return target.isEmpty()
        ? CompletableFuture.completedFuture(null)
        : schemas.of(target.get().server(), target.get().name(), calls);
  }

  /** tools/list, prompts/list: every server's items, each renamed {@code <prefix>__<name>}. */
  private CompletionStage<Outcome> listNamed(
      JsonRpcRequest request, View view, UpstreamCalls calls, String capability, String field) {
    ServerNamespace namespace = namespaces.get();
    return lists
        .collect(request, calls, serversWith(namespace, capability, view.upstreams()), field)
        .thenApply(
            collected -> {
              ArrayNode all = JsonRpcCodec.mapper().createArrayNode();
              collected
                  .byServer()
                  .forEach(
                      (server, items) ->
                          items.forEach(
                              item -> {
                                if (item.path("name").isTextual()) {
                                  ObjectNode renamed = ((ObjectNode) item).deepCopy();
                                  renamed.put(
                                      "name",
                                      namespace.qualify(server, item.get("name").textValue()));
                                  all.add(renamed);
                                }
                              }));
              ObjectNode result = collected.answer(field, all);
              return new Outcome.Result(result);
            });
  }

  /**
   * resources/list, resources/templates/list: every server's items unchanged, learning who owns
   * which.
   */
  private CompletionStage<Outcome> listResources(
      JsonRpcRequest request, View view, UpstreamCalls calls, String field, String key) {
    return lists
        .collect(request, calls, serversWith("resources", view.upstreams()), field)
        .thenApply(
            collected -> {
              ArrayNode all = JsonRpcCodec.mapper().createArrayNode();
              Map<String, String> owners = new LinkedHashMap<>();
              collected
                  .byServer()
                  .forEach(
                      (server, items) ->
                          items.forEach(
                              item -> {
                                all.add(item);
                                if (item.path(key).isTextual()) {
                                  owners.putIfAbsent(item.get(key).textValue(), server);
                                }
                              }));
              ObjectNode result = collected.answer(field, all);
              return "uri".equals(key)
                  ? new Outcome.ResourcesLearned(result, owners, Map.of())
                  : new Outcome.ResourcesLearned(result, Map.of(), owners);
            });
  }

  /** tools/call, prompts/get: the prefix names the server; the rest is that server's own name. */
  private CompletionStage<Outcome> dispatchByName(
      JsonRpcRequest request, UpstreamCalls calls, String kind) {
    JsonNode name = request.params() == null ? null : request.params().get("name");
    if (name == null || !name.isTextual()) {
      return done(
          new Outcome.Failure(new JsonRpcError(INVALID_PARAMS, "params.name must be a string")));
    }
    Optional<ServerNamespace.Qualified> target = namespaces.get().resolve(name.textValue());
    if (target.isEmpty()) {
      return done(new Outcome.Failure(ServerNamespace.unknownPrefix(kind, name.textValue())));
    }
    ObjectNode params = ((ObjectNode) request.params()).deepCopy();
    params.put("name", target.get().name());
    return calls
        .call(target.get().server(), request.method(), params)
        .thenApply(
            answer ->
                Outcome.of(ServerNamespace.published(answer, target.get(), name.textValue())));
  }

  /**
   * resources/read and resources/subscribe: the server that owns the URI, else the first that
   * answers for it.
   */
  private CompletionStage<Outcome> dispatchByUri(
      JsonRpcRequest request, View view, UpstreamCalls calls) {
    JsonNode uri = request.params() == null ? null : request.params().get("uri");
    if (uri == null || !uri.isTextual()) {
      return done(
          new Outcome.Failure(new JsonRpcError(INVALID_PARAMS, "params.uri must be a string")));
    }
    String owner = owner(uri.textValue(), view);
    List<String> candidates =
        owner != null ? List.of(owner) : serversWith("resources", view.upstreams());
    return firstAnswering(candidates, 0, request, calls, null)
        .thenApply(
            answered -> {
              if (answered.response().isError()) {
                return new Outcome.Failure(answered.response().error());
              }
              JsonNode result = answered.response().result();
              return McpMethods.RESOURCES_SUBSCRIBE.equals(request.method())
                  ? new Outcome.Subscribed(result, uri.textValue(), answered.server())
                  : new Outcome.ResourcesLearned(
                      result, Map.of(uri.textValue(), answered.server()), Map.of());
            });
  }

  /** completion/complete: a prompt ref is dispatched by its prefix, a resource ref by its URI. */
  private CompletionStage<Outcome> complete(
      JsonRpcRequest request, View view, UpstreamCalls calls) {
    JsonNode ref = request.params() == null ? null : request.params().get("ref");
    String type = ref == null ? "" : ref.path("type").asText("");
    if ("ref/prompt".equals(type) && ref.path("name").isTextual()) {
      String published = ref.get("name").textValue();
      Optional<ServerNamespace.Qualified> target = namespaces.get().resolve(published);
      if (target.isEmpty()) {
        return done(new Outcome.Failure(ServerNamespace.unknownPrefix("prompt", published)));
      }
      ObjectNode params = ((ObjectNode) request.params()).deepCopy();
      ((ObjectNode) params.get("ref")).put("name", target.get().name());
      return calls.call(target.get().server(), request.method(), params).thenApply(Outcome::of);
    }
    if ("ref/resource".equals(type) && ref.path("uri").isTextual()) {
      String owner = owner(ref.get("uri").textValue(), view);
      List<String> candidates =
          owner != null ? List.of(owner) : serversWith("completions", view.upstreams());
      return firstAnswering(candidates, 0, request, calls, null)
          .thenApply(answered -> Outcome.of(answered.response()));
    }
    return done(
        new Outcome.Failure(
            new JsonRpcError(
                INVALID_PARAMS,
                "params.ref must be a ref/prompt with a name or a ref/resource with a uri")));
  }

  // --------------------------------------------------------------------------------------- helpers

  private record Answered(String server, JsonRpcResponse response) {}

  /**
   * Asks the candidates one after another until one answers without an error; else the last error.
   */
  private CompletionStage<Answered> firstAnswering(
      List<String> candidates,
      int index,
      JsonRpcRequest request,
      UpstreamCalls calls,
      Answered lastError) {
    if (index >= candidates.size()) {
      JsonNode uri = request.params().path("uri");
      return done(
          lastError != null
              ? lastError
              : new Answered(
                  null,
                  JsonRpcResponse.failure(
                      request.id(),
                      new JsonRpcError(
                          RESOURCE_NOT_FOUND, "no server has resource " + uri.asText(""), null))));
    }
    String server = candidates.get(index);
    return calls
        .call(server, request.method(), request.params())
        .thenCompose(
            response ->
                response.isError()
                    ? firstAnswering(
                        candidates, index + 1, request, calls, new Answered(server, response))
                    : done(new Answered(server, response)));
  }

  /**
   * The server that listed the URI, else the one whose template's literal prefix matches it
   * longest.
   */
  private static String owner(String uri, View view) {
    String listed = view.resourceOwners().get(uri);
    if (listed != null) {
      return listed;
    }
    String best = null;
    int bestLength = 0;
    for (Map.Entry<String, String> template : view.templateOwners().entrySet()) {
      int brace = template.getKey().indexOf('{');
      String prefix = brace < 0 ? template.getKey() : template.getKey().substring(0, brace);
      if (prefix.length() > bestLength && uri.startsWith(prefix)) {
        best = template.getValue();
        bestLength = prefix.length();
      }
    }
    return best;
  }

  /**
   * Servers whose initialize result lists the capability, and those whose capabilities are unknown
   * (not up yet).
   */
  private List<String> serversWith(String capability, Map<String, JsonNode> upstreams) {
    return serversWith(namespaces.get(), capability, upstreams);
  }

  private static List<String> serversWith(
      ServerNamespace namespace, String capability, Map<String, JsonNode> upstreams) {
    List<String> servers = new ArrayList<>();
    for (String server : namespace.servers()) {
      JsonNode init = upstreams.get(server);
      if (init == null || init.path("capabilities").has(capability)) {
        servers.add(server);
      }
    }
    return servers;
  }

  private static <T> CompletionStage<T> done(T value) {
    return CompletableFuture.completedFuture(value);
  }
}
