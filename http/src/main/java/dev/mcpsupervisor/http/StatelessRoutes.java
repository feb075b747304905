package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.McpRequestChecks.header;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.RequestStates;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/**
 * The 2026-07-28 request path of the MCP endpoints: a request without a session, checked against
 * its headers ({@link StatelessEnvelope}), is served by a session of its own that ends with its
 * exchange; a retry answering an input_required round goes to the session keeping its call. {@link
 * McpRoutes} hands such requests here.
 */
final class StatelessRoutes {

  private final SessionExchanges exchanges;
  private final GatewaySettings settings;
  private final GatewayMetrics metrics;

  /** What a stateless client's cacheable results say: private when answers depend on a token. */
  private final String cacheScope;

  private final CallerIdentity callers;
  private final StreamQuota streamQuota;

  /** Stateless requests in flight per caller: {@code gateway.maxInflightPerIdentity}. */
  private final CallerLimit inflight;

  /**
   * @param cacheScope what a stateless client's cacheable results say ({@code private} when the
   *     gateway requires a token, since answers may then depend on who asks)
   * @param callers who a stateless request comes from, for its {@code isolation: context} servers
   * @param streamQuota how many listen streams a caller may hold open
   */
  StatelessRoutes(
      SessionExchanges exchanges,
      GatewaySettings settings,
      GatewayMetrics metrics,
      String cacheScope,
      CallerIdentity callers,
      StreamQuota streamQuota) {
    this.exchanges = exchanges;
    this.settings = settings;
    this.metrics = metrics;
    this.cacheScope = cacheScope;
    this.callers = callers;
    this.streamQuota = streamQuota;
    this.inflight = new CallerLimit(settings.limits().maxInflightPerIdentity());
  }

  /**
   * A 2026-07-28 request, checked against its headers, is served by a session of its own that ends
   * with its exchange: the leases it took are released, and a client that goes away cancels what it
   * asked upstream. Its calls to {@code isolation: context} servers go out in its caller's context
   * when the request names one ({@link CallerIdentity}), except a listen stream's.
   */
  CompletionStage<HttpResponse> request(
      JsonRpcRequest call,
      HttpRequest request,
      String path,
      String server,
      AcceptHeader accept,
      Identity caller) {
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
      return retry(call, requestState, principal, path, accept, caller);
    }
    boolean listen = McpMethods.SUBSCRIPTIONS_LISTEN.equals(call.method());
    String identity = listen ? null : callers.contextOf(caller, name -> header(request, name));
    Runnable finished;
    if (listen) {
      // a listen stream lasts: it counts against its caller's open streams, not its requests in
      // flight
      Optional<Runnable> permit = streamQuota.acquire(caller, request);
      if (permit.isEmpty()) {
        return done(streamQuota.refusal());
      }
      finished = permit.get();
    } else {
      finished = admit(caller, identity, principal);
    }
    if (finished == null) {
      metrics.rejected("overloaded");
      return done(
          McpResponses.json(
              StatusCodes.OK,
              JsonRpcCodec.toJson(
                  CallerLimit.overloaded(
                      call.id(),
                      "this caller",
                      settings.limits().maxInflightPerIdentity(),
                      "maxInflightPerIdentity"))));
    }
    return exchanges
        .createSession(server, identity, caller)
        .thenCompose(
            created -> {
              if (created.sessionId() == null) {
                finished.run();
                return done(exchanges.notCreated(created));
              }
              return exchange(
                  created.sessionId(),
                  path,
                  caller,
                  accept,
                  exchange ->
                      new DownstreamSession.Stateless(
                          call,
                          StatelessEnvelope.Meta.of(call),
                          cacheScope,
                          principal,
                          McpRequestChecks.paramHeaders(request),
                          accept.sse(),
                          exchange),
                  finished);
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
   * A retry that answers an input_required round goes to the session keeping its call, which its
   * verified requestState names.
   */
  private CompletionStage<HttpResponse> retry(
      JsonRpcRequest call,
      JsonNode requestState,
      String principal,
      String path,
      AcceptHeader accept,
      Identity caller) {
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
    return exchange(
        state.pendingId(),
        path,
        caller,
        accept,
        exchange -> new DownstreamSession.Resume(call, state, accept.sse(), exchange),
        () -> {});
  }

  /**
   * A stateless request's exchange with its session, which hears when the exchange is over (a
   * session serving one request ends with it); {@code whenOver} runs then too.
   */
  private CompletionStage<HttpResponse> exchange(
      String sessionId,
      String path,
      Identity caller,
      AcceptHeader accept,
      Function<ExchangeSink, DownstreamSession.Routed> command,
      Runnable whenOver) {
    Exchange exchange = exchanges.openExchange();
    exchange.terminated().thenRun(whenOver);
    exchanges.tell(sessionId, path, caller, command.apply(exchange));
    exchanges.closeWhenDone(exchange, sessionId, path, caller);
    return exchanges.answer(exchange, accept, false, null, () -> {});
  }

  private static CompletionStage<HttpResponse> done(HttpResponse response) {
    return CompletableFuture.completedFuture(response);
  }
}
