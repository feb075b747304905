package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.PARSE_ERROR;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.Asks;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.RequestStates;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.protocol.jsonrpc.ParsedPayload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.stream.Materializer;

/**
 * The MCP Streamable HTTP endpoints, {@code /mcp} and {@code /servers/<name>/mcp}: HTTP only. A
 * request is checked ({@link McpRequestChecks}: Content-Type, Accept, MCP-Protocol-Version, size),
 * its body parsed, its messages handed to the downstream session through {@link
 * DownstreamSessions}, and the session's {@link Exchange} events written back as JSON, 202 or SSE
 * ({@link ExchangeResponses}).
 */
final class McpRoutes extends AllDirectives {

  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(10);

  /** A client resuming a stream names the last event it received. */
  private static final String LAST_EVENT_ID = "Last-Event-ID";

  /** DELETE waits for the session's leases to be released. */
  private static final Duration DELETE_TIMEOUT = Duration.ofSeconds(60);

  private final ActorRef<DownstreamSessions.Command> sessions;
  private final Scheduler scheduler;
  private final Materializer materializer;
  private final GatewaySettings settings;
  private final long maxBodyBytes;
  private final Set<String> servers;
  private final GatewayMetrics metrics;
  private final Duration answerTimeout;

  /** What a stateless client's cacheable results say: private when answers depend on a token. */
  private final String cacheScope;

  private final CallerIdentity callers;

  private final McpRefusals refusals;
  private final McpRequestChecks checks;
  private final ExchangeResponses responses;
  private final OpenExchanges openExchanges = new OpenExchanges();

  /**
   * @param answerTimeout a safety net: every upstream call has its own deadline, so a POST whose
   *     first answer has not come by then means something inside broke; it gets 504 instead of
   *     hanging
   * @param cacheScope what a stateless client's cacheable results say ({@code private} when the
   *     gateway requires a token, since answers may then depend on who asks)
   * @param callers who a stateless request comes from, for its {@code isolation: context} servers
   */
  McpRoutes(
      ActorRef<DownstreamSessions.Command> sessions,
      Scheduler scheduler,
      Materializer materializer,
      GatewaySettings settings,
      long maxBodyBytes,
      Set<String> servers,
      GatewayMetrics metrics,
      Duration answerTimeout,
      String cacheScope,
      CallerIdentity callers) {
    this.sessions = sessions;
    this.scheduler = scheduler;
    this.materializer = materializer;
    this.settings = settings;
    this.maxBodyBytes = maxBodyBytes;
    this.servers = Set.copyOf(servers);
    this.metrics = metrics;
    this.answerTimeout = answerTimeout;
    this.cacheScope = cacheScope;
    this.callers = callers;
    this.refusals = new McpRefusals(metrics);
    this.checks = new McpRequestChecks(refusals, maxBodyBytes);
    this.responses = new ExchangeResponses(refusals, settings.sseKeepAlive());
  }

  Route route() {
    return concat(
        path("mcp", () -> endpoint(AggregatedEndpoint.PATH, null)),
        pathPrefix(
            "servers",
            () ->
                pathPrefix(
                    server ->
                        path(
                            "mcp",
                            () ->
                                servers.contains(server)
                                    ? endpoint(SingleServerEndpoint.pathOf(server), server)
                                    : complete(
                                        refusals.refuse(
                                            StatusCodes.NOT_FOUND,
                                            "unknown_server",
                                            "Not Found: no server named " + server))))));
  }

  private Route endpoint(String path, String server) {
    return concat(
        post(() -> extractRequest(request -> completeWithFuture(onPost(request, path, server)))),
        get(() -> extractRequest(request -> completeWithFuture(onGet(request, path)))),
        delete(() -> extractRequest(request -> completeWithFuture(onDelete(request, path)))));
  }

  // ------------------------------------------------------------------------------------------ POST

  private CompletionStage<HttpResponse> onPost(HttpRequest request, String path, String server) {
    AcceptHeader accept = AcceptHeader.of(request);
    Optional<HttpResponse> refusal = checks.post(request, accept);
    if (refusal.isPresent()) {
      return done(refusal.get());
    }
    McpRequestChecks.BodySize size = checks.bodySize(request);
    if (size == McpRequestChecks.BodySize.REFUSE) {
      return done(checks.tooLarge());
    }
    if (size == McpRequestChecks.BodySize.DRAIN_THEN_REFUSE) {
      return request
          .discardEntityBytes(materializer)
          .completionStage()
          .handle((drained, failure) -> checks.tooLarge());
    }
    return Asks.sameThread(
            request
                .entity()
                .withSizeLimit(maxBodyBytes)
                .toStrict(settings.bodyReadTimeout().toMillis(), materializer))
        .thenCompose(
            body ->
                dispatch(
                    JsonRpcCodec.parse(body.getData().toArray()), request, path, server, accept))
        .exceptionally(checks::unreadableBody);
  }

  private CompletionStage<HttpResponse> dispatch(
      ParsedPayload payload, HttpRequest request, String path, String server, AcceptHeader accept) {
    if (payload instanceof ParsedPayload.Rejected rejected) {
      boolean parseError = rejected.error().error().code() == PARSE_ERROR;
      metrics.rejected(parseError ? "parse_error" : "invalid_request");
      return done(
          McpResponses.json(StatusCodes.BAD_REQUEST, JsonRpcCodec.toJson(rejected.error())));
    }
    Optional<String> sessionId = McpRequestChecks.sessionId(request);
    if (sessionId.isEmpty()
        && payload instanceof ParsedPayload.Single single
        && single.message() instanceof JsonRpcRequest call
        && StatelessEnvelope.isStateless(
            header(request, McpResponses.PROTOCOL_VERSION_HEADER), call)) {
      return stateless(call, request, path, server, accept);
    }
    if (sessionId.isEmpty()) {
      Optional<HttpResponse> badVersion = checks.sessionEraVersion(request);
      if (badVersion.isPresent()) {
        return done(badVersion.get());
      }
    }
    if (payload instanceof ParsedPayload.Single single
        && single.message() instanceof JsonRpcRequest call
        && McpMethods.INITIALIZE.equals(call.method())) {
      return initialize(call, path, server, accept);
    }
    if (sessionId.isEmpty()) {
      return done(checks.missingSessionId());
    }
    List<JsonRpcMessage> messages = new ArrayList<>();
    List<JsonRpcResponse> preAnswered = new ArrayList<>();
    boolean batch = payload instanceof ParsedPayload.Batch;
    if (payload instanceof ParsedPayload.Single single) {
      messages.add(single.message());
    } else {
      for (ParsedPayload.Element element : ((ParsedPayload.Batch) payload).elements()) {
        if (element.error() != null) {
          preAnswered.add(element.error());
        } else if (element.message() instanceof JsonRpcRequest call
            && McpMethods.INITIALIZE.equals(call.method())) {
          preAnswered.add(
              JsonRpcResponse.failure(
                  call.id(),
                  INVALID_REQUEST,
                  "Invalid Request: initialize must not be part of a batch"));
        } else {
          messages.add(element.message());
        }
      }
    }
    return exchange(sessionId.get(), path, messages, preAnswered, batch, accept, null);
  }

  /**
   * initialize creates the session; its id goes back in Mcp-Session-Id unless initialize failed.
   */
  private CompletionStage<HttpResponse> initialize(
      JsonRpcRequest initialize, String path, String server, AcceptHeader accept) {
    return createSession(server, null)
        .thenCompose(
            created ->
                created.sessionId() == null
                    ? done(shuttingDown())
                    : exchange(
                        created.sessionId(),
                        path,
                        List.of(initialize),
                        List.of(),
                        false,
                        accept,
                        created.sessionId()));
  }

  /**
   * A 2026-07-28 request, checked against its headers, is served by a session of its own that ends
   * with its exchange: the leases it took are released, and a client that goes away cancels what it
   * asked upstream. Its calls to {@code isolation: context} servers go out in its caller's context
   * when the request names one ({@link CallerIdentity}), except a listen stream's.
   */
  private CompletionStage<HttpResponse> stateless(
      JsonRpcRequest call, HttpRequest request, String path, String server, AcceptHeader accept) {
    Optional<StatelessEnvelope.Rejection> rejection =
        StatelessEnvelope.check(call, name -> header(request, name));
    if (rejection.isPresent()) {
      StatelessEnvelope.Rejection refused = rejection.get();
      metrics.rejected("stateless_" + -refused.response().error().code());
      return done(
          McpResponses.json(
              StatusCodes.get(refused.httpStatus()), JsonRpcCodec.toJson(refused.response())));
    }
    String principal = RequestStates.principalOf(header(request, "Authorization"));
    JsonNode requestState = call.params() == null ? null : call.params().get("requestState");
    if (requestState != null) {
      return retry(call, requestState, principal, path, accept);
    }
    String identity =
        McpMethods.SUBSCRIPTIONS_LISTEN.equals(call.method())
            ? null
            : callers.contextOf(name -> header(request, name));
    return createSession(server, identity)
        .thenCompose(
            created ->
                created.sessionId() == null
                    ? done(shuttingDown())
                    : statelessExchange(
                        created.sessionId(),
                        path,
                        accept,
                        exchange ->
                            new DownstreamSession.Stateless(
                                call,
                                StatelessEnvelope.Meta.of(call),
                                cacheScope,
                                principal,
                                McpRequestChecks.paramHeaders(request),
                                accept.sse(),
                                exchange)));
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
      AcceptHeader accept) {
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
    return statelessExchange(
        state.pendingId(),
        path,
        accept,
        exchange -> new DownstreamSession.Resume(call, state, accept.sse(), exchange));
  }

  /**
   * A stateless request's exchange with its session, which hears when the exchange is over (a
   * session serving one request ends with it).
   */
  private CompletionStage<HttpResponse> statelessExchange(
      String sessionId,
      String path,
      AcceptHeader accept,
      Function<ActorRef<Exchange.Event>, DownstreamSession.Routed> command) {
    Exchange exchange = openExchange();
    sessions.tell(new DownstreamSessions.Deliver(sessionId, path, command.apply(exchange.ref())));
    closeWhenDone(exchange, sessionId, path);
    return answer(exchange, accept, false, null, () -> {});
  }

  /**
   * A new downstream session's id, or null when the gateway is shutting down.
   *
   * @param identity its caller's context, or null
   */
  private CompletionStage<DownstreamSessions.Created> createSession(
      String server, String identity) {
    return Asks.ask(
        sessions,
        replyTo -> new DownstreamSessions.Create(server, identity, replyTo),
        ASK_TIMEOUT,
        scheduler);
  }

  private HttpResponse shuttingDown() {
    return refusals.refuse(
        StatusCodes.SERVICE_UNAVAILABLE,
        "shutting_down",
        "Service Unavailable: the gateway is shutting down");
  }

  private static String header(HttpRequest request, String name) {
    return request.getHeader(name).map(HttpHeader::value).orElse(null);
  }

  /**
   * Hands the messages to the session and answers from its exchange: 202 when nothing needs an
   * answer, JSON when the answers come alone, SSE when something came before them (or the client
   * accepts nothing else).
   *
   * @param newSessionId the id to return in Mcp-Session-Id (initialize only), else null
   */
  private CompletionStage<HttpResponse> exchange(
      String sessionId,
      String path,
      List<JsonRpcMessage> messages,
      List<JsonRpcResponse> preAnswered,
      boolean batch,
      AcceptHeader accept,
      String newSessionId) {
    Exchange exchange = openExchange();
    sessions.tell(
        new DownstreamSessions.Deliver(
            sessionId,
            path,
            new DownstreamSession.Post(
                messages, preAnswered, batch, accept.sse(), exchange.ref())));
    return answer(
        exchange, accept, batch, newSessionId, () -> closeWhenDone(exchange, sessionId, path));
  }

  /**
   * The HTTP answer of an exchange, from its first event; 504 when none comes in time.
   *
   * @param onStream run when the answer is a stream
   */
  private CompletionStage<HttpResponse> answer(
      Exchange exchange,
      AcceptHeader accept,
      boolean batch,
      String newSessionId,
      Runnable onStream) {
    return exchange
        .head()
        .toCompletableFuture()
        .orTimeout(answerTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .handle(
            (head, failure) -> {
              if (failure != null) {
                exchange.ref().tell(new Exchange.Complete(List.of()));
                return refusals.refuse(
                    StatusCodes.GATEWAY_TIMEOUT,
                    "no_answer",
                    "Gateway Timeout: no answer within " + answerTimeout);
              }
              return responses.post(head, accept, batch, newSessionId, onStream);
            });
  }

  // ------------------------------------------------------------------------------------------- GET

  private CompletionStage<HttpResponse> onGet(HttpRequest request, String path) {
    Optional<HttpResponse> refusal = checks.get(request);
    if (refusal.isPresent()) {
      return done(refusal.get());
    }
    Optional<String> sessionId = McpRequestChecks.sessionId(request);
    if (sessionId.isEmpty()) {
      return done(checks.missingSessionId());
    }
    Exchange exchange = openExchange();
    Optional<String> lastEventId = request.getHeader(LAST_EVENT_ID).map(HttpHeader::value);
    sessions.tell(
        new DownstreamSessions.Deliver(
            sessionId.get(),
            path,
            lastEventId.isPresent()
                ? new DownstreamSession.ResumeStream(lastEventId.get(), exchange.ref())
                : new DownstreamSession.OpenStream(exchange.ref())));
    return exchange
        .head()
        .thenApply(
            head -> responses.get(head, () -> closeWhenDone(exchange, sessionId.get(), path)));
  }

  // ---------------------------------------------------------------------------------------- DELETE

  private CompletionStage<HttpResponse> onDelete(HttpRequest request, String path) {
    Optional<HttpResponse> badVersion = checks.delete(request);
    if (badVersion.isPresent()) {
      return done(badVersion.get());
    }
    Optional<String> sessionId = McpRequestChecks.sessionId(request);
    if (sessionId.isEmpty()) {
      return done(checks.missingSessionId());
    }
    return Asks.<DownstreamSessions.Command, DownstreamSessions.Reply>ask(
            sessions,
            replyTo -> new DownstreamSessions.Terminate(sessionId.get(), path, replyTo),
            DELETE_TIMEOUT,
            scheduler)
        .thenApply(
            reply ->
                reply == DownstreamSessions.Reply.DONE
                    ? HttpResponse.create().withStatus(StatusCodes.OK)
                    : refusals.refuse(
                        StatusCodes.NOT_FOUND, "unknown_session", "Session not found"));
  }

  // --------------------------------------------------------------------------------------- helpers

  private Exchange openExchange() {
    return openExchanges.track(Exchange.open(materializer, settings.streamBuffer()));
  }

  /** Completes once every response stream open now is written out, or at {@code deadline}. */
  CompletionStage<Void> responsesWritten(Duration deadline) {
    return openExchanges.allClosed(deadline);
  }

  /** Once the client is gone from a stream, the session stops sending on it. */
  private void closeWhenDone(Exchange exchange, String sessionId, String path) {
    exchange
        .terminated()
        .thenRun(
            () ->
                sessions.tell(
                    new DownstreamSessions.Deliver(
                        sessionId, path, new DownstreamSession.ExchangeClosed(exchange.ref()))));
  }

  private static <T> CompletionStage<T> done(T value) {
    return CompletableFuture.completedFuture(value);
  }
}
