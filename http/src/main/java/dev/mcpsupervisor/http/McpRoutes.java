package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.PARSE_ERROR;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.Asks;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.protocol.jsonrpc.ParsedPayload;
import dev.mcpsupervisor.upstream.Failures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaType;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.scaladsl.model.EntityStreamSizeException;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * The MCP Streamable HTTP endpoints, {@code /mcp} and {@code /servers/<name>/mcp}: HTTP only. A
 * request is checked (Content-Type, Accept, MCP-Protocol-Version, size), its body parsed, its
 * messages handed to the downstream session through {@link DownstreamSessions}, and the session's
 * {@link Exchange} events written back as JSON, 202 or SSE.
 */
final class McpRoutes extends AllDirectives {

  /**
   * A body declared up to this many times the limit is read and dropped before the 413; a larger
   * one is not.
   */
  private static final long DRAIN_LIMIT_FACTOR = 4;

  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(10);

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

  /**
   * @param answerTimeout a safety net: every upstream call has its own deadline, so a POST whose
   *     first answer has not come by then means something inside broke; it gets 504 instead of
   *     hanging
   */
  McpRoutes(
      ActorRef<DownstreamSessions.Command> sessions,
      Scheduler scheduler,
      Materializer materializer,
      GatewaySettings settings,
      long maxBodyBytes,
      Set<String> servers,
      GatewayMetrics metrics,
      Duration answerTimeout) {
    this.sessions = sessions;
    this.scheduler = scheduler;
    this.materializer = materializer;
    this.settings = settings;
    this.maxBodyBytes = maxBodyBytes;
    this.servers = Set.copyOf(servers);
    this.metrics = metrics;
    this.answerTimeout = answerTimeout;
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
                                        refuse(
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
    MediaType mediaType = request.entity().getContentType().mediaType();
    if (!"application".equals(mediaType.mainType()) || !"json".equals(mediaType.subType())) {
      return done(
          refuse(
              StatusCodes.UNSUPPORTED_MEDIA_TYPE,
              "unsupported_media_type",
              "Unsupported Media Type: Content-Type must be application/json"));
    }
    AcceptHeader accept = AcceptHeader.of(request);
    Optional<HttpResponse> refusal =
        checkAcceptAndProtocolVersion(
            request,
            accept.json() || accept.sse(),
            "Not Acceptable: the client must accept application/json or text/event-stream");
    if (refusal.isPresent()) {
      return done(refusal.get());
    }
    long declared = request.entity().getContentLengthOption().orElse(0L);
    if (declared > maxBodyBytes) {
      if (declared > DRAIN_LIMIT_FACTOR * maxBodyBytes) {
        return done(tooLarge()); // not worth reading: the connection closes after the answer
      }
      // read (and drop) the body first: answering while the client still sends makes the connection
      // close under it, and the client may lose the 413 to the reset
      return request
          .discardEntityBytes(materializer)
          .completionStage()
          .handle((drained, failure) -> tooLarge());
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
        .exceptionally(this::unreadableBody);
  }

  private CompletionStage<HttpResponse> dispatch(
      ParsedPayload payload, HttpRequest request, String path, String server, AcceptHeader accept) {
    if (payload instanceof ParsedPayload.Rejected rejected) {
      boolean parseError = rejected.error().error().code() == PARSE_ERROR;
      metrics.rejected(parseError ? "parse_error" : "invalid_request");
      return done(
          McpResponses.json(StatusCodes.BAD_REQUEST, JsonRpcCodec.toJson(rejected.error())));
    }
    if (payload instanceof ParsedPayload.Single single
        && single.message() instanceof JsonRpcRequest call
        && McpMethods.INITIALIZE.equals(call.method())) {
      return initialize(call, path, server, accept);
    }
    Optional<String> sessionId = sessionId(request);
    if (sessionId.isEmpty()) {
      return done(missingSessionId());
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
    return Asks.<DownstreamSessions.Command, DownstreamSessions.Created>ask(
            sessions,
            replyTo -> new DownstreamSessions.Create(server, replyTo),
            ASK_TIMEOUT,
            scheduler)
        .thenCompose(
            created ->
                created.sessionId() == null
                    ? done(
                        refuse(
                            StatusCodes.SERVICE_UNAVAILABLE,
                            "shutting_down",
                            "Service Unavailable: the gateway is shutting down"))
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
    Exchange exchange = Exchange.open(materializer, settings.streamBuffer());
    sessions.tell(
        new DownstreamSessions.Deliver(
            sessionId,
            path,
            new DownstreamSession.Post(
                messages, preAnswered, batch, accept.sse(), exchange.ref())));
    return exchange
        .head()
        .toCompletableFuture()
        .orTimeout(answerTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .handle(
            (head, failure) -> {
              if (failure != null) {
                exchange.ref().tell(new Exchange.Complete(List.of()));
                return refuse(
                    StatusCodes.GATEWAY_TIMEOUT,
                    "no_answer",
                    "Gateway Timeout: no answer within " + answerTimeout);
              }
              if (head.first() instanceof Exchange.Refused refused) {
                return refused(refused);
              }
              if (head.first() instanceof Exchange.Complete complete) {
                List<ObjectNode> answers = complete.responses();
                if (answers.isEmpty()) {
                  return McpResponses.accepted();
                }
                boolean succeeded = answers.size() != 1 || !answers.get(0).has("error");
                HttpResponse response =
                    accept.json()
                        ? McpResponses.json(
                            StatusCodes.OK, batch ? arrayOf(answers) : answers.get(0))
                        : McpResponses.eventStream(
                            Source.from(answers).map(SseFrames::event), settings.sseKeepAlive());
                return withSessionId(response, succeeded ? newSessionId : null);
              }
              closeWhenDone(exchange, sessionId, path);
              return withSessionId(
                  McpResponses.eventStream(streamOf(head), settings.sseKeepAlive()), newSessionId);
            });
  }

  // ------------------------------------------------------------------------------------------- GET

  private CompletionStage<HttpResponse> onGet(HttpRequest request, String path) {
    Optional<HttpResponse> refusal =
        checkAcceptAndProtocolVersion(
            request,
            AcceptHeader.of(request).sse(),
            "Not Acceptable: GET opens an SSE stream; the client must accept text/event-stream");
    if (refusal.isPresent()) {
      return done(refusal.get());
    }
    Optional<String> sessionId = sessionId(request);
    if (sessionId.isEmpty()) {
      return done(missingSessionId());
    }
    Exchange exchange = Exchange.open(materializer, settings.streamBuffer());
    sessions.tell(
        new DownstreamSessions.Deliver(
            sessionId.get(), path, new DownstreamSession.OpenStream(exchange.ref())));
    return exchange
        .head()
        .thenApply(
            head -> {
              if (head.first() instanceof Exchange.Refused refused) {
                return refused(refused);
              }
              closeWhenDone(exchange, sessionId.get(), path);
              return McpResponses.eventStream(streamOf(head), settings.sseKeepAlive());
            });
  }

  // ---------------------------------------------------------------------------------------- DELETE

  private CompletionStage<HttpResponse> onDelete(HttpRequest request, String path) {
    Optional<HttpResponse> badVersion = checkProtocolVersion(request);
    if (badVersion.isPresent()) {
      return done(badVersion.get());
    }
    Optional<String> sessionId = sessionId(request);
    if (sessionId.isEmpty()) {
      return done(missingSessionId());
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
                    : refuse(StatusCodes.NOT_FOUND, "unknown_session", "Session not found"));
  }

  // --------------------------------------------------------------------------------------- helpers

  private static Optional<String> sessionId(HttpRequest request) {
    return request
        .getHeader(McpResponses.SESSION_ID_HEADER)
        .map(header -> header.value().trim())
        .filter(value -> !value.isEmpty());
  }

  /**
   * 406 when the client cannot accept what this method answers with, else {@link
   * #checkProtocolVersion}.
   */
  private Optional<HttpResponse> checkAcceptAndProtocolVersion(
      HttpRequest request, boolean accepted, String notAcceptableMessage) {
    if (!accepted) {
      return Optional.of(
          refuse(StatusCodes.NOT_ACCEPTABLE, "not_acceptable", notAcceptableMessage));
    }
    return checkProtocolVersion(request);
  }

  private Optional<HttpResponse> checkProtocolVersion(HttpRequest request) {
    Optional<String> version =
        request.getHeader(McpResponses.PROTOCOL_VERSION_HEADER).map(h -> h.value().trim());
    if (version.isPresent() && !ProtocolVersions.isSupported(version.get())) {
      return Optional.of(
          refuse(
              StatusCodes.BAD_REQUEST,
              "unsupported_protocol_version",
              "Bad Request: unsupported MCP-Protocol-Version "
                  + version.get()
                  + " (supported: "
                  + String.join(", ", ProtocolVersions.SUPPORTED)
                  + ")"));
    }
    return Optional.empty();
  }

  private HttpResponse missingSessionId() {
    return refuse(
        StatusCodes.BAD_REQUEST,
        "missing_session",
        "Bad Request: Mcp-Session-Id header is required");
  }

  private HttpResponse tooLarge() {
    return refuse(
        StatusCodes.CONTENT_TOO_LARGE,
        "payload_too_large",
        "Payload Too Large: the body exceeds " + maxBodyBytes + " bytes");
  }

  private HttpResponse unreadableBody(Throwable failure) {
    Throwable cause = Failures.unwrap(failure);
    if (cause instanceof EntityStreamSizeException) {
      return tooLarge();
    }
    if (cause instanceof TimeoutException) {
      return refuse(
          StatusCodes.REQUEST_TIMEOUT,
          "body_timeout",
          "Request Timeout: the body did not arrive in time");
    }
    if (cause instanceof RuntimeException runtime) {
      throw runtime; // a fault of ours: the exception handler answers -32603
    }
    throw new CompletionException(cause);
  }

  private HttpResponse refused(Exchange.Refused refused) {
    metrics.rejected(refused.status() == 404 ? "unknown_session" : "refused_" + refused.status());
    return McpResponses.json(StatusCodes.get(refused.status()), refused.error());
  }

  private HttpResponse refuse(StatusCode status, String reason, String message) {
    metrics.rejected(reason);
    return McpResponses.error(status, INVALID_REQUEST, message);
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

  private static Source<ByteString, NotUsed> streamOf(Exchange.Head head) {
    return Source.single(head.first()).concat(head.rest()).mapConcat(McpRoutes::frames);
  }

  private static List<ByteString> frames(Exchange.Event event) {
    if (event instanceof Exchange.Message message) {
      return List.of(SseFrames.event(message.json()));
    }
    if (event instanceof Exchange.Complete complete) {
      return complete.responses().stream().map(SseFrames::event).toList();
    }
    return List.of();
  }

  private static ArrayNode arrayOf(List<ObjectNode> answers) {
    ArrayNode array = JsonRpcCodec.mapper().createArrayNode();
    answers.forEach(array::add);
    return array;
  }

  private static HttpResponse withSessionId(HttpResponse response, String sessionId) {
    return sessionId == null
        ? response
        : response.addHeader(RawHeader.create(McpResponses.SESSION_ID_HEADER, sessionId));
  }

  private static <T> CompletionStage<T> done(T value) {
    return CompletableFuture.completedFuture(value);
  }
}
