package dev.mcpsupervisor.http.routes;

import static dev.mcpsupervisor.http.routes.McpRequestChecks.header;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.http.access.CallerIdentity;
import dev.mcpsupervisor.http.access.CallerLimit;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.access.SessionQuota;
import dev.mcpsupervisor.http.access.StreamQuota;
import dev.mcpsupervisor.http.cluster.NodeDesk;
import dev.mcpsupervisor.http.endpoint.AggregatedEndpoint;
import dev.mcpsupervisor.http.endpoint.InForce;
import dev.mcpsupervisor.http.endpoint.McpEndpoint;
import dev.mcpsupervisor.http.endpoint.SingleServerEndpoint;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import dev.mcpsupervisor.http.session.DownstreamSessions;
import dev.mcpsupervisor.http.session.ListenSession;
import dev.mcpsupervisor.http.stateless.PendingRounds;
import dev.mcpsupervisor.http.stateless.StatelessRequest;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.McpResponses;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.RequestStates;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.config.CallerHeaders;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/**
 * The 2026-07-28 request path of the MCP endpoints: a request without a session, checked against
 * its headers ({@link StatelessEnvelope}), runs as a {@link StatelessRequest} (no session, no actor
 * of its own); a retry answering an {@code input_required} round goes to the request parked in
 * {@link PendingRounds}; a {@code subscriptions/listen} stream, which lasts, is served by a
 * downstream session of its own. {@link McpRoutes} hands such requests here.
 */
final class StatelessRoutes {

  private final SessionExchanges exchanges;
  private final GatewaySettings settings;
  private final GatewayMetrics metrics;
  private final StatelessRequest.Gateway gateway;
  private final InForce inForce;

  private final CallerIdentity callers;
  private final StreamQuota streamQuota;

  /** Stateless requests in flight per caller: {@code gateway.maxInflightPerIdentity}. */
  private final CallerLimit inflight;

  /** Names each request's own supervisor context. */
  private final AtomicLong requestIds = new AtomicLong();

  /**
   * @param gateway what every stateless request shares
   * @param inForce the endpoints and access rules in force
   * @param callers who a stateless request comes from, for its {@code isolation: context} servers
   * @param streamQuota how many listen streams a caller may hold open
   */
  StatelessRoutes(
      SessionExchanges exchanges,
      GatewaySettings settings,
      GatewayMetrics metrics,
      StatelessRequest.Gateway gateway,
      InForce inForce,
      CallerIdentity callers,
      StreamQuota streamQuota) {
    this.exchanges = exchanges;
    this.settings = settings;
    this.metrics = metrics;
    this.gateway = gateway;
    this.inForce = inForce;
    this.callers = callers;
    this.streamQuota = streamQuota;
    this.inflight =
        new CallerLimit(() -> inForce.get().gateway().sessionLimits().maxInflightPerIdentity());
  }

  /**
   * A 2026-07-28 request, checked against its headers. Its calls to {@code isolation: context}
   * servers go out in its caller's context when the request names one ({@link CallerIdentity}),
   * except a listen stream's; a client that goes away cancels what it asked upstream.
   */
  CompletionStage<HttpResponse> request(
      ServerSpans.Traced traced,
      HttpRequest request,
      String path,
      String server,
      AcceptHeader accept,
      Identity caller) {
    JsonRpcRequest call = traced.request();
    Optional<StatelessEnvelope.Rejection> rejection =
        StatelessEnvelope.check(call, name -> header(request, name));
    if (rejection.isPresent()) {
      StatelessEnvelope.Rejection refused = rejection.get();
      metrics.rejected("stateless_" + -refused.response().error().code());
      return done(
          McpResponses.json(
              StatusCodes.get(refused.httpStatus()), JsonRpcCodec.toJson(refused.response())));
    }
    // an authenticated caller's request states are bound to who it is, not to one token
    String principal =
        RequestStates.principalOf(
            caller.isAnonymous() ? header(request, "Authorization") : caller.key());
    JsonNode requestState = call.params() == null ? null : call.params().get("requestState");
    if (requestState != null) {
      return retry(call, requestState, principal, accept, traced);
    }
    if (McpMethods.SUBSCRIPTIONS_LISTEN.equals(call.method())) {
      return listen(call, request, server, accept, caller, traced);
    }
    InForce.Served served = inForce.get();
    McpEndpoint endpoint = served.endpoints().get(path);
    if (endpoint == null) {
      // its server was removed by a reload since the request was routed
      return done(
          McpResponses.error(
              StatusCodes.NOT_FOUND, INVALID_REQUEST, "Not Found: no server named " + server));
    }
    String callerContext = callers.contextOf(caller, name -> header(request, name));
    Runnable finished = admit(caller, callerContext, principal);
    if (finished == null) {
      metrics.rejected("overloaded");
      return done(
          McpResponses.json(
              StatusCodes.OK,
              JsonRpcCodec.toJson(
                  CallerLimit.overloaded(
                      call.id(),
                      "this caller",
                      inForce.get().gateway().sessionLimits().maxInflightPerIdentity(),
                      "maxInflightPerIdentity"))));
    }
    // only an endpoint with an isolation: context server calls in the caller's context
    String identity = served.contextIsolationPaths().contains(path) ? callerContext : null;
    StatelessRequest.Arrival arrival =
        new StatelessRequest.Arrival(
            call,
            inForce.endpointFor(endpoint, caller),
            "stateless-" + requestIds.incrementAndGet(),
            identity,
            principal,
            McpRequestChecks.paramHeaders(request),
            actingAs(endpoint, caller),
            CallerTokens.passedBy(served, path, caller, request),
            served.cacheScope(identity));
    Exchange exchange = exchanges.openExchange();
    traced.attach(exchange);
    StatelessRequest running = new StatelessRequest(gateway, arrival, exchange, accept.sse());
    exchange
        .terminated()
        .thenRun(
            () -> {
              finished.run();
              running.exchangeEnded(exchange);
            });
    running.start();
    return exchanges.answer(exchange, accept, false, null, () -> {});
  }

  /**
   * A listen stream lasts: a session of its own serves it (it holds its subscriptions), and it
   * counts against its caller's open streams, not its requests in flight.
   */
  private CompletionStage<HttpResponse> listen(
      JsonRpcRequest call,
      HttpRequest request,
      String server,
      AcceptHeader accept,
      Identity caller,
      ServerSpans.Traced traced) {
    Optional<Runnable> permit = streamQuota.acquire(caller, request);
    if (permit.isEmpty()) {
      return done(streamQuota.refusal());
    }
    Runnable finished = permit.get();
    return exchanges
        .createSession(server, caller, DownstreamSessions.Kind.LISTEN_STREAM)
        .thenCompose(
            created -> {
              if (created.sessionId() == null) {
                finished.run();
                return done(exchanges.notCreated(created));
              }
              String path =
                  server == null ? AggregatedEndpoint.PATH : SingleServerEndpoint.pathOf(server);
              Exchange exchange = exchanges.openExchange();
              traced.attach(exchange);
              exchange.terminated().thenRun(finished);
              exchanges.tell(
                  created.sessionId(),
                  path,
                  caller,
                  new ListenSession.Listen(
                      call, StatelessEnvelope.Meta.of(call), inForce.get().cacheScope(), exchange));
              exchanges.closeWhenDone(exchange, created.sessionId(), path, caller);
              return exchanges.answer(exchange, accept, false, null, () -> {});
            })
        .whenComplete(
            (response, failure) -> {
              if (failure != null) {
                finished.run();
              }
            });
  }

  /**
   * Counts a request of its caller (its identity context, else its identity, else its credential);
   * answers what to run once it is over (once; later runs do nothing), or null when the caller has
   * {@code maxInflightPerIdentity} requests in flight. Callers that name nobody are not told apart,
   * so not counted: one of them must not lock the others out (the session limits still bound them).
   */
  private Runnable admit(Identity caller, String context, String principal) {
    String key = SessionQuota.callerOf(caller, context);
    String counted = key != null ? key : principal;
    if (counted == null) {
      return () -> {};
    }
    return inflight.acquire(counted).orElse(null);
  }

  /**
   * A retry that answers an input_required round goes to the request parked under the id its
   * verified requestState names.
   */
  private CompletionStage<HttpResponse> retry(
      JsonRpcRequest call,
      JsonNode requestState,
      String principal,
      AcceptHeader accept,
      ServerSpans.Traced traced) {
    RequestStates.Opened opened =
        settings
            .requestStates()
            .open(
                requestState.asText(null),
                call.method(),
                StatelessEnvelope.nameOf(call),
                principal);
    if (opened instanceof RequestStates.Opened.Invalid invalid) {
      metrics.rejected("request_state");
      return done(
          McpResponses.json(
              StatusCodes.BAD_REQUEST,
              JsonRpcCodec.toJson(
                  JsonRpcResponse.failure(call.id(), INVALID_PARAMS, invalid.why()))));
    }
    RequestStates.State state = ((RequestStates.Opened.Valid) opened).state();
    Exchange exchange = exchanges.openExchange();
    traced.attach(exchange);
    if (gateway.pending().heldElsewhere(state.node()) && exchanges.desk() != null) {
      exchanges.desk().tell(new NodeDesk.ForwardRetry(call, state, accept.sse(), exchange));
      return exchanges.answer(exchange, accept, false, null, () -> {});
    }
    StatelessRequest parked = gateway.pending().get(state.pendingId());
    if (parked == null) {
      exchange.tell(PendingRounds.noRoundWaiting(call));
    } else {
      exchange.terminated().thenRun(() -> parked.exchangeEnded(exchange));
      parked.resume(call, state, exchange, accept.sse());
    }
    return exchanges.answer(exchange, accept, false, null, () -> {});
  }

  private static CompletionStage<HttpResponse> done(HttpResponse response) {
    return CompletableFuture.completedFuture(response);
  }

  /**
   * Whom the request's calls act as: its caller, when a server of its endpoint acts as its caller
   * ({@code ${identity:NAME}} headers); else null, and nothing is remembered for it.
   */
  private String actingAs(McpEndpoint endpoint, Identity caller) {
    if (caller.isAnonymous()) {
      return null;
    }
    Map<String, ServerConfig> servers = gateway.supervisor().config().servers();
    boolean acts =
        endpoint.servers().stream()
            .map(servers::get)
            .anyMatch(server -> server != null && CallerHeaders.actsAsCaller(server));
    return acts ? caller.name() : null;
  }
}
