package dev.mcpsupervisor.http.request;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.http.endpoint.McpEndpoint;
import dev.mcpsupervisor.http.endpoint.Outcome;
import dev.mcpsupervisor.http.endpoint.UpstreamCalls;
import dev.mcpsupervisor.http.stream.SparseMaps;
import dev.mcpsupervisor.protocol.LogLevels;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What a client of either era asks and is told: its requests turned into upstream calls through the
 * endpoint, the outcomes turned into answers, and the per-client protocol state that decides them —
 * log level, resource subscriptions, which server owns which resource, the servers' initialize
 * results. Per-client state on shared upstream sessions lives here, never upstream, so one client's
 * settings never leak into another's. Plain class on its owner's thread. What is particular to a
 * session (2025) is in {@code http.session} (its notifications both ways, its record for the
 * cluster), what is particular to a stateless (2026-07-28) request in {@code http.stateless}.
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
    public static Client of(JsonRpcRequest initialize) {
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

  private final McpEndpoint endpoint;
  private String logLevel;
  private Map<String, JsonNode> upstreams = Map.of();
  private Map<String, String> resourceOwners = Map.of(); // these three: sparse (see SparseMaps)
  private Map<String, String> templateOwners = Map.of();
  private Set<String> subscriptions = Set.of();

  public ClientRequests(McpEndpoint endpoint) {
    this.endpoint = endpoint;
  }

  public String path() {
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
   * What the servers offer, known from elsewhere (a stateless request's {@link
   * dev.mcpsupervisor.http.stateless.ServerOffers}).
   */
  public void knowUpstreams(Map<String, JsonNode> initializeResults) {
    upstreams = Map.copyOf(initializeResults);
  }

  /** What the servers answered this client's initialize (or are known to offer), by server. */
  public Map<String, JsonNode> upstreams() {
    return upstreams;
  }

  /** What {@code logging/setLevel} asked (or a stateless request's level); null before. */
  public String logLevel() {
    return logLevel;
  }

  /** Whether the client subscribed to {@code uri}. */
  public boolean subscribes(String uri) {
    return subscriptions.contains(uri);
  }

  /** The client's subscriptions whose server is known: resource URI → the server that took it. */
  public Map<String, String> subscribed() {
    Map<String, String> subscribed = new HashMap<>();
    for (String uri : subscriptions) {
      String server = resourceOwners.get(uri);
      if (server != null) {
        subscribed.put(uri, server);
      }
    }
    return subscribed;
  }

  /**
   * Takes over the protocol state of a session another node served, and asks this node's upstream
   * sessions for what it had asked of that node's: its subscriptions (resource URI → server) and
   * its log level.
   */
  public void restore(
      Map<String, JsonNode> upstreams,
      String logLevel,
      Map<String, String> subscriptions,
      UpstreamCalls calls) {
    this.upstreams = upstreams;
    this.logLevel = logLevel;
    subscriptions.forEach(
        (uri, server) -> {
          this.subscriptions = SparseMaps.with(this.subscriptions, uri);
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
        return new Started(null, handle(request, calls), true);
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

  /** The request through the endpoint, with {@code view} of what the client knows. */
  public CompletionStage<Outcome> handle(
      JsonRpcRequest request, McpEndpoint.View view, UpstreamCalls calls) {
    try {
      return endpoint.handle(request, view, calls);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** A copy of what the client knows, for a call that goes on from a future (not the maps). */
  public McpEndpoint.View snapshot() {
    return new McpEndpoint.View(upstreams, Map.copyOf(resourceOwners), Map.copyOf(templateOwners));
  }

  /** Remembers what the outcome teaches the client's state, and turns it into the answer. */
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
}
