package dev.mcpsupervisor.http.session;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.HEADER_MISMATCH;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.endpoint.McpEndpoint;
import dev.mcpsupervisor.http.endpoint.Outcome;
import dev.mcpsupervisor.http.endpoint.UpstreamCalls;
import dev.mcpsupervisor.http.stream.SparseMaps;
import dev.mcpsupervisor.protocol.LogLevels;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ParamHeaders;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What a session-era (2025) client asks and is told: its requests turned into upstream calls
 * through the endpoint, the outcomes turned into answers, and the per-client protocol state that
 * decides them — log level, resource subscriptions, which server owns which resource, the servers'
 * initialize results. Per-client state on shared upstream sessions lives here, never upstream, so
 * one client's settings never leak into another's. Plain class on the session's thread; what is
 * particular to a stateless (2026-07-28) client is {@link
 * dev.mcpsupervisor.http.stateless.StatelessRequest}.
 */
public final class ClientRequests {

  /**
   * The client as it introduced itself at initialize, with the protocol version negotiated for it.
   */
  public record Client(
      String protocolVersion,
      JsonNode capabilities,
      String name,
      String version,
      String cacheScope) {
    static Client of(JsonRpcRequest initialize) {
      JsonNode params =
          initialize.params() == null ? JsonRpcCodec.emptyObject() : initialize.params();
      JsonNode clientInfo = params.path("clientInfo");
      return new Client(
          ProtocolVersions.negotiate(params.path("protocolVersion").asText("")),
          ClientCapabilities.namesOf(params.get("capabilities")),
          SharedValues.clientInfo(clientInfo.path("name").asText(null)),
          SharedValues.clientInfo(clientInfo.path("version").asText(null)),
          null);
    }

    /**
     * A 2026-07-28 client, as its request's {@code _meta} describes it; {@code cacheScope} is what
     * its cacheable results say.
     */
    public static Client stateless(StatelessEnvelope.Meta meta, String cacheScope) {
      JsonNode info = meta.clientInfo() == null ? JsonRpcCodec.emptyObject() : meta.clientInfo();
      return new Client(
          meta.protocolVersion(),
          meta.clientCapabilities(),
          info.path("name").asText(null),
          info.path("version").asText(null),
          cacheScope);
    }

    /** No session on the wire: answers carry resultType and cache hints, no server requests. */
    boolean isStateless() {
      return ProtocolVersions.STATELESS.contains(protocolVersion);
    }

    /** Its answer as its protocol wants it. */
    public JsonRpcResponse answer(JsonRpcRequest request, JsonRpcResponse response) {
      return isStateless()
          ? StatelessEnvelope.forStatelessClient(request, response, cacheScope)
          : StatelessEnvelope.forSessionClient(request, response);
    }
  }

  /** A request started: answered at once ({@code answer}), or an outcome to wait for. */
  public record Started(
      JsonRpcResponse answer, CompletionStage<Outcome> outcome, boolean carriesServerMessages) {
    static Started answered(JsonRpcResponse answer) {
      return new Started(answer, null, false);
    }
  }

  private final String context;
  private final McpEndpoint endpoint;
  private final SessionSupervisor supervisor;
  private String logLevel;
  private Map<String, JsonNode> upstreams = Map.of();
  private Map<String, String> resourceOwners = Map.of(); // these three: sparse (see SparseMaps)
  private Map<String, String> templateOwners = Map.of();
  private Set<String> subscriptions = Set.of();

  /** A stateless request's Mcp-Param-* headers; null for a session-era client (none checked). */
  private Map<String, String> paramHeaders;

  public ClientRequests(String context, McpEndpoint endpoint, SessionSupervisor supervisor) {
    this.context = context;
    this.endpoint = endpoint;
    this.supervisor = supervisor;
  }

  String path() {
    return endpoint.path();
  }

  /**
   * A stateless request's logs: at {@code level}, or none when it names none (the revision sends
   * logs only to a request that asks for them).
   */
  public void statelessLogLevel(String level) {
    logLevel = level != null && LogLevels.isLevel(level) ? level : LogLevels.OFF;
  }

  /**
   * A stateless request's {@code Mcp-Param-*} headers: its tools/call is checked against the tool's
   * schema before it goes upstream.
   */
  public void statelessParamHeaders(Map<String, String> headers) {
    paramHeaders = headers;
  }

  /**
   * What the servers offer, known from elsewhere (a stateless request's {@link
   * dev.mcpsupervisor.http.stateless.ServerOffers}).
   */
  public void knowUpstreams(Map<String, JsonNode> initializeResults) {
    upstreams = Map.copyOf(initializeResults);
  }

  /** This session's protocol state, as {@code home} serves it: what a survivor needs of it. */
  SessionRecord record(String id, Identity owner, Client client, String home) {
    Map<String, String> subscribed = new HashMap<>();
    for (String uri : subscriptions) {
      String server = resourceOwners.get(uri);
      if (server != null) {
        subscribed.put(uri, server);
      }
    }
    return new SessionRecord(
        id, endpoint.path(), owner, client, upstreams, logLevel, subscribed, home);
  }

  /**
   * Takes over the protocol state of a session another node served, and asks this node's upstream
   * sessions for what it had asked of that node's: its subscriptions and its log level.
   */
  void restore(SessionRecord record, UpstreamCalls calls) {
    upstreams = record.upstreams();
    logLevel = record.logLevel();
    record
        .subscriptions()
        .forEach(
            (uri, server) -> {
              subscriptions = SparseMaps.with(subscriptions, uri);
              resourceOwners = SparseMaps.with(resourceOwners, uri, server);
              ObjectNode params = JsonRpcCodec.emptyObject();
              params.put("uri", uri);
              calls.call(server, McpMethods.RESOURCES_SUBSCRIBE, params);
            });
    if (logLevel != null) {
      askUpstreamsForEveryLevel(calls);
    }
  }

  public CompletionStage<Outcome> initialize(Client client, UpstreamCalls calls) {
    return endpoint.initialize(calls, client.protocolVersion());
  }

  public Started start(JsonRpcRequest request, UpstreamCalls calls) {
    switch (request.method()) {
      case McpMethods.PING -> {
        return Started.answered(JsonRpcResponse.success(request.id(), JsonRpcCodec.emptyObject()));
      }
      case McpMethods.LOGGING_SET_LEVEL -> {
        String level =
            request.params() == null ? null : request.params().path("level").asText(null);
        if (level == null || !LogLevels.isLevel(level)) {
          return Started.answered(
              JsonRpcResponse.failure(
                  request.id(), INVALID_PARAMS, "params.level must be one of " + LogLevels.ORDER));
        }
        logLevel = level;
        return new Started(null, askUpstreamsForEveryLevel(calls), false);
      }
      case McpMethods.RESOURCES_UNSUBSCRIBE -> {
        String uri = request.params() == null ? null : request.params().path("uri").asText(null);
        String owner = uri != null && subscriptions.contains(uri) ? resourceOwners.get(uri) : null;
        subscriptions = SparseMaps.without(subscriptions, uri);
        if (owner == null) {
          return Started.answered(
              JsonRpcResponse.success(request.id(), JsonRpcCodec.emptyObject()));
        }
        // the supervisor counts the subscribers of the shared upstream session: the upstream hears
        // of it when this session was the last
        return new Started(
            null,
            calls
                .call(owner, McpMethods.RESOURCES_UNSUBSCRIBE, request.params())
                .thenApply(Outcome::of),
            false);
      }
      case McpMethods.TOOLS_CALL -> {
        return new Started(
            null,
            paramHeaders == null ? handle(request, calls) : checkedToolCall(request, calls),
            true);
      }
      default -> {
        return new Started(null, handle(request, calls), true);
      }
    }
  }

  /**
   * Upstream sessions are shared: each is asked for everything, and every session filters at its
   * own level.
   */
  private CompletionStage<Outcome> askUpstreamsForEveryLevel(UpstreamCalls calls) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("level", LogLevels.UPSTREAM_LEVEL);
    List<CompletableFuture<JsonRpcResponse>> asks = new ArrayList<>();
    for (String server : endpoint.servers()) {
      JsonNode init = upstreams.get(server);
      if (init != null && init.path("capabilities").has("logging")) {
        asks.add(calls.call(server, McpMethods.LOGGING_SET_LEVEL, params).toCompletableFuture());
      }
    }
    return CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new))
        .handle((allDone, failure) -> new Outcome.Result(JsonRpcCodec.emptyObject()));
  }

  private CompletionStage<Outcome> handle(JsonRpcRequest request, UpstreamCalls calls) {
    return handle(
        request,
        new McpEndpoint.View(
            upstreams,
            Collections.unmodifiableMap(resourceOwners),
            Collections.unmodifiableMap(templateOwners)),
        calls);
  }

  private CompletionStage<Outcome> handle(
      JsonRpcRequest request, McpEndpoint.View view, UpstreamCalls calls) {
    try {
      return endpoint.handle(request, view, calls);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * A listen stream's resources, each subscribed on the server that owns it ({@link
   * ListenedResources}). Answers URI → server for those a server took.
   */
  CompletionStage<Map<String, String>> subscribeListened(List<String> uris, UpstreamCalls calls) {
    return ListenedResources.subscribe(endpoint, snapshot(), uris, calls);
  }

  /** A copy of what the session knows, for a call that goes on from a future (not the maps). */
  private McpEndpoint.View snapshot() {
    return new McpEndpoint.View(upstreams, Map.copyOf(resourceOwners), Map.copyOf(templateOwners));
  }

  /**
   * A 2026-07-28 tools/call whose Mcp-Param-* headers must say what its arguments say (SEP-2243):
   * the tool's declarations come from its server's tool list as {@link
   * dev.mcpsupervisor.http.endpoint.ToolSchemas} keeps it (no call of its own while the
   * supervisor's list cache keeps that list), and a mismatch is refused with 400 and -32020 before
   * anything goes upstream. A tool that declares none is not checked; nor is one its list does not
   * show (or a list that cannot be had): the server answers for it.
   */
  private CompletionStage<Outcome> checkedToolCall(JsonRpcRequest request, UpstreamCalls calls) {
    McpEndpoint.View view = snapshot();
    Map<String, String> headers = paramHeaders;
    JsonNode params = request.params() == null ? JsonRpcCodec.emptyObject() : request.params();
    return endpoint
        .toolDeclarations(params.path("name").asText(""), calls)
        .thenCompose(
            declarations -> {
              Optional<String> mismatch =
                  declarations == null
                          || (declarations.isValid() && declarations.headers().isEmpty())
                      ? Optional.empty()
                      : ParamHeaders.mismatch(declarations, params.path("arguments"), headers::get);
              return mismatch.isPresent()
                  ? CompletableFuture.completedFuture(
                      new Outcome.Refused(
                          400,
                          new JsonRpcError(HEADER_MISMATCH, "Header mismatch: " + mismatch.get())))
                  : handle(request, view, calls);
            });
  }

  /** Remembers what the outcome teaches the session, and turns it into the answer. */
  public JsonRpcResponse apply(JsonRpcRequest request, Outcome outcome) {
    if (outcome instanceof Outcome.Failure failed) {
      return JsonRpcResponse.failure(request.id(), failed.error());
    }
    if (outcome instanceof Outcome.Refused refused) {
      return JsonRpcResponse.failure(request.id(), refused.error());
    }
    JsonNode result;
    if (outcome instanceof Outcome.Initialized initialized) {
      upstreams = Map.copyOf(initialized.upstreams());
      result = initialized.result();
    } else if (outcome instanceof Outcome.ResourcesLearned learned) {
      resourceOwners = SparseMaps.withAll(resourceOwners, learned.owners());
      templateOwners = SparseMaps.withAll(templateOwners, learned.templateOwners());
      result = learned.result();
    } else if (outcome instanceof Outcome.Subscribed subscribed) {
      subscriptions = SparseMaps.with(subscriptions, subscribed.uri());
      resourceOwners = SparseMaps.withIfNew(resourceOwners, subscribed.uri(), subscribed.server());
      result = subscribed.result();
    } else {
      result = ((Outcome.Result) outcome).result();
    }
    return JsonRpcResponse.success(request.id(), result);
  }

  /**
   * notifications/cancelled cancels the request upstream; roots/list_changed goes to every server.
   */
  void onNotification(JsonRpcNotification notification, Client client, DownstreamStreams streams) {
    JsonNode params =
        notification.params() == null ? JsonRpcCodec.emptyObject() : notification.params();
    switch (notification.method()) {
      case McpMethods.NOTIFICATION_CANCELLED -> {
        DownstreamStreams.InFlight call = streams.inFlight(params.path("requestId"));
        if (call != null && call.carriesServerMessages && !call.cancelled) {
          call.cancelled = true;
          call.calls.cancelAll();
        }
      }
      case McpMethods.NOTIFICATION_ROOTS_LIST_CHANGED -> {
        // only a client with roots can answer the roots/list that servers send in reply
        if (client != null && client.capabilities().has("roots")) {
          endpoint
              .servers()
              .forEach(server -> supervisor.notify(context, server, notification.method(), params));
        }
      }
      default -> {
        // notifications/initialized and anything else: nothing to do
      }
    }
  }

  /** A server's notification, to the stream it belongs on, if this client wants it. */
  void route(
      DownstreamSession.UpstreamNotification upstream, JsonNode params, DownstreamStreams streams) {
    JsonRpcNotification notification = upstream.notification();
    switch (notification.method()) {
      case McpMethods.NOTIFICATION_PROGRESS ->
          // progress carries the client's own token (the supervisor restored it): it goes with that
          // request
          streams.sendProgress(
              JsonRpcCodec.toJson(notification), params.get("progressToken"), upstream.server());
      case McpMethods.NOTIFICATION_MESSAGE -> {
        String threshold = logLevel != null ? logLevel : LogLevels.DEFAULT_THRESHOLD;
        // logs on a request's upstream stream come tagged with that request: they go on its stream.
        // Untagged ones (stdio) reach every context leased on that upstream session: only a session
        // with a request in flight there can be the one they are about, so the GET stream never
        // carries them (no cross-client leak)
        if (LogLevels.passes(params.path("level").asText(""), threshold)) {
          ObjectNode json = JsonRpcCodec.toJson(notification);
          if (!streams.sendOnTaggedExchange(json, upstream.relatedTag())) {
            streams.sendOnRelatedExchange(json, upstream.server());
          }
        }
      }
      case McpMethods.NOTIFICATION_RESOURCE_UPDATED -> {
        if (subscriptions.contains(params.path("uri").asText(""))) {
          streams.sendUnrelated(JsonRpcCodec.toJson(notification), upstream.server());
        }
      }
      default -> streams.sendUnrelated(JsonRpcCodec.toJson(notification), upstream.server());
    }
  }
}
