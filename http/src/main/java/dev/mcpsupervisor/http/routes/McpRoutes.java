package dev.mcpsupervisor.http.routes;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.PARSE_ERROR;

import dev.mcpsupervisor.actors.Asks;
import dev.mcpsupervisor.http.access.CallerIdentity;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.access.McpRefusals;
import dev.mcpsupervisor.http.access.StreamQuota;
import dev.mcpsupervisor.http.cluster.NodeDesk;
import dev.mcpsupervisor.http.endpoint.AggregatedEndpoint;
import dev.mcpsupervisor.http.endpoint.InForce;
import dev.mcpsupervisor.http.endpoint.SingleServerEndpoint;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import dev.mcpsupervisor.http.ops.Readiness;
import dev.mcpsupervisor.http.session.DownstreamSession;
import dev.mcpsupervisor.http.session.DownstreamSessions;
import dev.mcpsupervisor.http.session.SessionDirectory;
import dev.mcpsupervisor.http.stateless.PendingRounds;
import dev.mcpsupervisor.http.stateless.StatelessRequest;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.McpResponses;
import dev.mcpsupervisor.protocol.McpMethods;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.Connection;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.stream.Materializer;

/**
 * The MCP Streamable HTTP endpoints, {@code /mcp} and {@code /servers/<name>/mcp}: HTTP only. A
 * request is checked ({@link McpRequestChecks}: Content-Type, Accept, MCP-Protocol-Version, size),
 * its body parsed and each message's envelope checked ({@link EnvelopeScreen}: a malformed one is
 * answered here and goes no further), its messages told to the downstream session straight from
 * here (its {@link SessionDirectory}; {@link DownstreamSessions} creates and ends sessions), and
 * the session's {@link Exchange} events written back as JSON, 202 or SSE ({@link
 * ExchangeResponses}). A 2026-07-28 request, which names no session, goes to {@link
 * StatelessRoutes}.
 */
public final class McpRoutes extends AllDirectives {

  /** A client resuming a stream names the last event it received. */
  private static final String LAST_EVENT_ID = "Last-Event-ID";

  /** DELETE waits for the session's leases to be released. */
  private static final Duration DELETE_TIMEOUT = Duration.ofSeconds(60);

  private final ActorRef<DownstreamSessions.Command> sessions;
  private final Scheduler scheduler;
  private final GatewaySettings settings;
  private final GatewayMetrics metrics;
  private final InForce inForce;
  private final Readiness readiness;
  private final StreamQuota streamQuota;

  private final McpRefusals refusals;
  private final McpRequestChecks checks;
  private final EnvelopeScreen screen;
  private final PostBodies bodies;
  private final SessionExchanges exchanges;
  private final StatelessRoutes stateless;
  private final PendingRounds pending;

  /**
   * @param answerTimeout see {@link SessionExchanges}
   * @param stateless what every 2026-07-28 request shares
   * @param inForce the endpoints and access rules in force
   * @param callers see {@link StatelessRoutes}
   * @param readiness off while the gateway stops: new requests are then answered 503
   */
  /** The SERVER spans of the requests received. */
  private final ServerSpans spans;

  public McpRoutes(
      ActorRef<DownstreamSessions.Command> sessions,
      SessionDirectory directory,
      Materializer materializer,
      GatewaySettings settings,
      GatewayMetrics metrics,
      Duration answerTimeout,
      StatelessRequest.Gateway stateless,
      InForce inForce,
      CallerIdentity callers,
      Readiness readiness,
      ActorRef<NodeDesk.Command> desk) {
    this.sessions = sessions;
    this.scheduler = stateless.scheduler();
    this.settings = settings;
    this.metrics = metrics;
    this.inForce = inForce;
    this.readiness = readiness;
    this.pending = stateless.pending();
    this.refusals = new McpRefusals(metrics);
    this.checks = new McpRequestChecks(refusals, () -> inForce.get().gateway().maxBodyBytes());
    this.screen = new EnvelopeScreen(metrics);
    this.bodies =
        new PostBodies(
            checks,
            materializer,
            () -> inForce.get().gateway().maxBodyBytes(),
            settings.bodyReadTimeout());
    this.exchanges =
        new SessionExchanges(
            sessions,
            directory,
            scheduler,
            materializer,
            settings,
            answerTimeout,
            () -> inForce.get().gateway().connectionLimits().maxStreamBufferBytes(),
            refusals,
            desk,
            readiness);
    this.streamQuota =
        new StreamQuota(
            () -> inForce.get().gateway().connectionLimits().maxStreamsPerIdentity(), refusals);
    this.stateless =
        new StatelessRoutes(exchanges, settings, metrics, stateless, inForce, callers, streamQuota);
    this.spans = new ServerSpans(stateless.supervisor().telemetry());
  }

  /** The long-lived streams a caller may hold open: the operations page's count too. */
  public StreamQuota streamQuota() {
    return streamQuota;
  }

  /**
   * The endpoints as {@code caller} sees them: a server it may not use is refused with 403, and
   * every session it reaches must be its own (another identity's session id is unknown, 404).
   */
  Route route(Identity caller) {
    return concat(
        path("mcp", () -> endpoint(AggregatedEndpoint.PATH, null, caller)),
        pathPrefix(
            "servers",
            () -> pathPrefix(server -> path("mcp", () -> serverEndpoint(server, caller)))));
  }

  private Route serverEndpoint(String server, Identity caller) {
    InForce.Served served = inForce.get();
    if (!served.serves(server)) {
      return complete(
          refusals.refuse(
              StatusCodes.NOT_FOUND, "unknown_server", "Not Found: no server named " + server));
    }
    if (!served.access().mayUse(caller, server)) {
      return complete(
          refusals.refuse(
              StatusCodes.FORBIDDEN,
              "server_not_allowed",
              "Forbidden: this identity may not use server " + server));
    }
    return endpoint(SingleServerEndpoint.pathOf(server), server, caller);
  }

  /**
   * A draining gateway takes no new request: it could not promise to finish it. A draining cluster
   * node still takes them until its responses are written ({@link
   * SessionExchanges#takesWhileStopping}): the other nodes go on serving its sessions.
   */
  private Route endpoint(String path, String server, Identity caller) {
    return extractRequest( // read at each request
        request ->
            readiness.isReady() || exchanges.takesWhileStopping()
                ? methods(path, server, caller)
                : complete(drainingRefusal()));
  }

  private HttpResponse drainingRefusal() {
    return exchanges.shuttingDown().addHeader(Connection.create("close"));
  }

  private Route methods(String path, String server, Identity caller) {
    return concat(
        post(
            () ->
                extractRequest(
                    request -> completeWithFuture(onPost(request, path, server, caller)))),
        get(() -> extractRequest(request -> completeWithFuture(onGet(request, path, caller)))),
        delete(
            () -> extractRequest(request -> completeWithFuture(onDelete(request, path, caller)))));
  }

  // ------------------------------------------------------------------------------------------ POST

  private CompletionStage<HttpResponse> onPost(
      HttpRequest request, String path, String server, Identity caller) {
    AcceptHeader accept = AcceptHeader.of(request);
    Optional<HttpResponse> refusal = checks.post(request, accept);
    if (refusal.isPresent()) {
      return done(refusal.get());
    }
    return bodies.read(
        request,
        body ->
            dispatch(JsonRpcCodec.parse(body.toArray()), request, path, server, accept, caller));
  }

  private CompletionStage<HttpResponse> dispatch(
      ParsedPayload payload,
      HttpRequest request,
      String path,
      String server,
      AcceptHeader accept,
      Identity caller) {
    if (payload instanceof ParsedPayload.Rejected rejected) {
      boolean parseError = rejected.error().error().code() == PARSE_ERROR;
      metrics.rejected(parseError ? "parse_error" : "invalid_request");
      return done(
          McpResponses.json(StatusCodes.BAD_REQUEST, JsonRpcCodec.toJson(rejected.error())));
    }
    Optional<String> sessionId = McpRequestChecks.sessionId(request);
    String versionHeader = McpRequestChecks.header(request, McpResponses.PROTOCOL_VERSION_HEADER);
    boolean statelessCall =
        sessionId.isEmpty()
            && payload instanceof ParsedPayload.Single single
            && single.message() instanceof JsonRpcRequest call
            && StatelessEnvelope.isStateless(versionHeader, call);
    // a malformed message is answered here and goes no further
    EnvelopeScreen.Screened screened =
        screen.screen(payload, EnvelopeScreen.rulesOf(versionHeader, statelessCall, payload));
    if (screened.forward() == null) {
      return done(screened.refusal());
    }
    if (statelessCall) {
      JsonRpcRequest call = (JsonRpcRequest) ((ParsedPayload.Single) payload).message();
      ServerSpans.Traced traced = spans.start(call, null, versionHeader);
      return stateless
          .request(traced, request, path, server, accept, caller)
          .thenApply(traced::answered);
    }
    CompletionStage<HttpResponse> answer =
        sessionEra(screened, request, path, server, accept, caller, sessionId, versionHeader);
    // a malformed answer went on as an error for its upstream; its client is refused
    return screened.refusal() == null ? answer : answer.thenApply(handedOn -> screened.refusal());
  }

  private CompletionStage<HttpResponse> sessionEra(
      EnvelopeScreen.Screened screened,
      HttpRequest request,
      String path,
      String server,
      AcceptHeader accept,
      Identity caller,
      Optional<String> sessionId,
      String versionHeader) {
    ParsedPayload payload = screened.forward();
    if (sessionId.isEmpty()) {
      Optional<HttpResponse> badVersion = checks.sessionEraVersion(request);
      if (badVersion.isPresent()) {
        return done(badVersion.get());
      }
    }
    if (payload instanceof ParsedPayload.Single single
        && single.message() instanceof JsonRpcRequest call
        && McpMethods.INITIALIZE.equals(call.method())) {
      return initialize(
          call,
          path,
          server,
          accept,
          caller,
          CallerTokens.passedBy(inForce.get(), path, caller, request));
    }
    if (sessionId.isEmpty()) {
      return done(checks.missingSessionId());
    }
    List<JsonRpcMessage> messages = new ArrayList<>();
    List<JsonRpcResponse> preAnswered = new ArrayList<>(screened.batchErrors());
    boolean batch = payload instanceof ParsedPayload.Batch;
    if (payload instanceof ParsedPayload.Single single) {
      messages.add(single.message());
    } else {
      List<ParsedPayload.Element> elements = ((ParsedPayload.Batch) payload).elements();
      int maxBatchLength = inForce.get().gateway().sessionLimits().maxBatchLength();
      for (int i = 0; i < elements.size(); i++) {
        ParsedPayload.Element element = elements.get(i);
        if (element.error() != null) {
          preAnswered.add(element.error());
        } else if (i >= maxBatchLength) {
          // every request gets its answer; a notification or response past it is dropped
          if (element.message() instanceof JsonRpcRequest call) {
            preAnswered.add(
                JsonRpcResponse.failure(
                    call.id(),
                    INVALID_REQUEST,
                    "Invalid Request: the batch has more than "
                        + maxBatchLength
                        + " messages (gateway.maxBatchLength); send the rest in another"));
          }
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
    return exchange(
        sessionId.get(),
        path,
        caller,
        spans.start(messages, sessionId.get(), versionHeader),
        preAnswered,
        batch,
        accept,
        null,
        CallerTokens.passedBy(inForce.get(), path, caller, request));
  }

  /**
   * initialize creates the session; its id goes back in Mcp-Session-Id unless initialize failed.
   */
  private CompletionStage<HttpResponse> initialize(
      JsonRpcRequest initialize,
      String path,
      String server,
      AcceptHeader accept,
      Identity caller,
      String callerToken) {
    return exchanges
        .createSession(server, caller, DownstreamSessions.Kind.SESSION)
        .thenCompose(
            created ->
                created.sessionId() == null
                    ? done(exchanges.notCreated(created))
                    : exchange(
                        created.sessionId(),
                        path,
                        caller,
                        spans.start(
                            initialize,
                            created.sessionId(),
                            initialize.params() == null
                                ? null
                                : initialize.params().path("protocolVersion").asText(null)),
                        List.of(),
                        false,
                        accept,
                        created.sessionId(),
                        callerToken));
  }

  /**
   * Hands the messages to the session and answers from its exchange: 202 when nothing needs an
   * answer, JSON when the answers come alone, SSE when something came before them (or the client
   * accepts nothing else).
   *
   * @param newSessionId the id to return in Mcp-Session-Id (initialize only), else null
   * @param callerToken the bearer token the caller presented, when a server of the endpoint passes
   *     it upstream; else null
   */
  private CompletionStage<HttpResponse> exchange(
      String sessionId,
      String path,
      Identity caller,
      ServerSpans.Traced traced,
      List<JsonRpcResponse> preAnswered,
      boolean batch,
      AcceptHeader accept,
      String newSessionId,
      String callerToken) {
    Exchange exchange = exchanges.openExchange();
    traced.attach(exchange);
    exchanges.route(
        sessionId,
        path,
        caller,
        new DownstreamSession.Post(
            traced.messages(), preAnswered, batch, accept.sse(), exchange, callerToken),
        exchange);
    return exchanges.answer(
        exchange,
        accept,
        batch,
        newSessionId,
        () -> exchanges.closeWhenDone(exchange, sessionId, path, caller));
  }

  // ------------------------------------------------------------------------------------------- GET

  private CompletionStage<HttpResponse> onGet(HttpRequest request, String path, Identity caller) {
    Optional<HttpResponse> refusal = checks.get(request);
    if (refusal.isPresent()) {
      return done(refusal.get());
    }
    Optional<String> sessionId = McpRequestChecks.sessionId(request);
    if (sessionId.isEmpty()) {
      return done(checks.missingSessionId());
    }
    Optional<Runnable> permit = streamQuota.acquire(caller, request);
    if (permit.isEmpty()) {
      return done(streamQuota.refusal());
    }
    Exchange exchange = exchanges.openExchange();
    exchange.terminated().thenRun(permit.get());
    Optional<String> lastEventId = request.getHeader(LAST_EVENT_ID).map(HttpHeader::value);
    exchanges.route(
        sessionId.get(),
        path,
        caller,
        lastEventId.isPresent()
            ? new DownstreamSession.ResumeStream(lastEventId.get(), exchange)
            : new DownstreamSession.OpenStream(exchange),
        exchange);
    return exchange
        .head()
        .thenApply(
            head ->
                exchanges
                    .responses()
                    .get(
                        head,
                        () -> exchanges.closeWhenDone(exchange, sessionId.get(), path, caller)));
  }

  // ---------------------------------------------------------------------------------------- DELETE

  private CompletionStage<HttpResponse> onDelete(
      HttpRequest request, String path, Identity caller) {
    Optional<HttpResponse> badVersion = checks.delete(request);
    if (badVersion.isPresent()) {
      return done(badVersion.get());
    }
    Optional<String> sessionId = McpRequestChecks.sessionId(request);
    if (sessionId.isEmpty()) {
      return done(checks.missingSessionId());
    }
    CompletionStage<DownstreamSessions.Reply> ended =
        exchanges.heldElsewhere(sessionId.get())
            ? Asks.<NodeDesk.Command, DownstreamSessions.Reply>ask(
                exchanges.desk(),
                replyTo -> new NodeDesk.ForwardDelete(sessionId.get(), path, caller, replyTo),
                DELETE_TIMEOUT,
                scheduler)
            : Asks.<DownstreamSessions.Command, DownstreamSessions.Reply>ask(
                sessions,
                replyTo -> new DownstreamSessions.Terminate(sessionId.get(), path, caller, replyTo),
                DELETE_TIMEOUT,
                scheduler);
    return ended.thenApply(
        reply ->
            reply == DownstreamSessions.Reply.DONE
                ? HttpResponse.create().withStatus(StatusCodes.OK)
                : refusals.refuse(StatusCodes.NOT_FOUND, "unknown_session", "Session not found"));
  }

  // --------------------------------------------------------------------------------------- helpers

  /**
   * Completes once no response stream is open, those opened meanwhile included, and all are written
   * out, or at {@code deadline}; from then on a stopping cluster node passes no request on.
   */
  public CompletionStage<Void> responsesWritten(Duration deadline) {
    return exchanges.responsesWritten(deadline);
  }

  /**
   * Completes once no 2026-07-28 request is parked on a round, or after {@code within} (see {@link
   * PendingRounds#settled}).
   */
  public CompletionStage<Void> roundsSettled(Duration within) {
    return pending.settled(within);
  }

  /** The gateway stops: the 2026-07-28 requests parked on a round are given up. */
  public void abandonRounds() {
    pending.abandonAll("the gateway is stopping");
  }

  private static <T> CompletionStage<T> done(T value) {
    return CompletableFuture.completedFuture(value);
  }
}
