package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.UpstreamLimits;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One MCP Streamable HTTP session, client side. Every message is POSTed (Accept: JSON or SSE); the
 * session id and the protocol version are learnt from the initialize exchange passing through and
 * sent on every later request. An answer arrives as a JSON body or as an SSE stream that may carry
 * notifications and server requests before it; both are delivered with the POSTed request's id as
 * the related id. Once {@code notifications/initialized} is accepted, the standalone GET stream
 * carries server-initiated messages; it is reopened with backoff (and {@code Last-Event-ID})
 * whenever it ends, for as long as the connection lives.
 *
 * <p>A 404 for our session id means the server forgot the session ({@code SESSION_NOT_FOUND}); a
 * refused connection or a broken response stream is a {@code TRANSPORT_ERROR}. Either ends the
 * connection.
 */
final class StreamableHttpConnection implements UpstreamConnection, StandaloneStream.Owner {

  private static final Logger log = LoggerFactory.getLogger(StreamableHttpConnection.class);
  private static final Duration DELETE_TIMEOUT = Duration.ofSeconds(2);

  private final HttpClient client;
  private final URI url;
  private final List<Map.Entry<String, String>> headers;
  private final ConnectionEvents events;
  private final UpstreamLimits limits;
  private final AtomicBoolean closing = new AtomicBoolean();
  private final CompletableFuture<Void> closed = new CompletableFuture<>();
  private final StandaloneStream standalone;

  /** Open response and standalone streams, cancelled on close. */
  private final Set<SseStream> streams = ConcurrentHashMap.newKeySet();

  /**
   * Exchanges in flight, each with whether its answer's headers came: on close only those still
   * waiting are aborted (see {@link #track}).
   */
  private final Map<CompletableFuture<?>, BooleanSupplier> exchanges = new ConcurrentHashMap<>();

  private volatile String sessionId;
  private volatile String protocolVersion;
  private volatile JsonNode initializeId;

  StreamableHttpConnection(
      HttpClient client,
      URI url,
      List<Map.Entry<String, String>> headers,
      String name,
      UpstreamLimits limits,
      ConnectionListener listener) {
    this.client = client;
    this.url = url;
    this.headers = headers;
    this.limits = limits;
    this.events = new ConnectionEvents(name, listener);
    this.standalone = new StandaloneStream(client, limits, name, this);
  }

  @Override
  public CompletionStage<Void> send(JsonRpcMessage message) {
    if (closing.get() || events.isClosed()) {
      return events.sendAfterClose();
    }
    JsonNode requestId = null;
    boolean initialize = false;
    if (message instanceof JsonRpcRequest request) {
      requestId = request.id();
      initialize = McpMethods.INITIALIZE.equals(request.method());
      if (initialize) {
        initializeId = request.id();
      }
    }
    HttpRequest post =
        sessionRequest()
            .header("Accept", HttpTransport.JSON + ", " + HttpTransport.EVENT_STREAM)
            .header("Content-Type", HttpTransport.JSON)
            .timeout(limits.httpTimeout())
            .POST(HttpRequest.BodyPublishers.ofByteArray(JsonRpcCodec.toBytes(message)))
            .build();
    Post exchange =
        new Post(
            requestId,
            initialize,
            post.headers().firstValue(HttpTransport.SESSION_ID_HEADER).isPresent());
    CompletableFuture<HttpResponse<byte[]>> sent = client.sendAsync(post, exchange);
    if (initialize) {
      // a new session's first POST may go out on a pooled connection the server is closing (the
      // SDK's servlet transport closes some after a session ends): nothing of it can have been
      // acted on that a second initialize would not replace, so it is sent once more
      sent =
          sent.exceptionallyCompose(
              failure ->
                  HttpTransport.closedBeforeAnswer(failure) && !closing.get()
                      ? client.sendAsync(post, exchange)
                      : CompletableFuture.failedFuture(failure));
    }
    track(sent, exchange::headersCame).whenComplete(exchange::finish);
    if (message instanceof JsonRpcNotification notification
        && McpMethods.NOTIFICATION_INITIALIZED.equals(notification.method())) {
      exchange.accepted.thenRun(standalone::start);
    }
    return exchange.accepted;
  }

  @Override
  public CompletionStage<Void> close() {
    if (closing.compareAndSet(false, true)) {
      events.close(ConnectionClosed.Kind.CLOSED_BY_US, "closed by the supervisor");
      abortExchanges();
      String session = sessionId;
      if (session == null) {
        closed.complete(null);
      } else {
        // ends the session on the server; 404/405 (gone already, or not supported) are fine
        HttpRequest delete = sessionRequest().timeout(DELETE_TIMEOUT).DELETE().build();
        client
            .sendAsync(delete, HttpResponse.BodyHandlers.discarding())
            .orTimeout(DELETE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
            .whenComplete(
                (response, failure) -> {
                  if (failure != null) {
                    log.debug(
                        "{}: DELETE of the session failed: {}",
                        events.name(),
                        HttpTransport.describe(failure));
                  }
                  closed.complete(null);
                });
      }
    }
    return closed;
  }

  @Override
  public OptionalLong pid() {
    return OptionalLong.empty();
  }

  /** The session id the server gave at initialize, or null before (for tests and diagnostics). */
  String sessionId() {
    return sessionId;
  }

  /** A request carrying the configured headers, and the session headers once initialized. */
  @Override
  public HttpRequest.Builder sessionRequest() {
    HttpRequest.Builder builder = HttpTransport.request(url, headers);
    String session = sessionId;
    if (session != null) {
      builder.header(HttpTransport.SESSION_ID_HEADER, session);
    }
    String version = protocolVersion;
    if (version != null) {
      builder.header(HttpTransport.PROTOCOL_VERSION_HEADER, version);
    }
    return builder;
  }

  @Override
  public boolean isLive() {
    return !closing.get() && !events.isClosed();
  }

  @Override
  public boolean hasSession() {
    return sessionId != null;
  }

  @Override
  public <T> CompletableFuture<T> track(
      CompletableFuture<T> exchange, BooleanSupplier headersCame) {
    exchanges.put(exchange, headersCame);
    exchange.whenComplete((response, failure) -> exchanges.remove(exchange));
    return exchange;
  }

  private void abortExchanges() {
    streams.forEach(SseStream::cancel);
    streams.clear();
    // an exchange whose headers came owns its connection until its body ends, and then the client
    // pools the connection before the future completes: cancelling the future then would close a
    // connection another request may already use. Such a body ends by itself, or is a stream
    // cancelled above.
    exchanges.forEach(
        (exchange, headersCame) -> {
          if (!headersCame.getAsBoolean()) {
            exchange.cancel(true);
          }
        });
  }

  @Override
  public void opened(SseStream stream) {
    streams.add(stream);
  }

  @Override
  public void ended(SseStream stream) {
    streams.remove(stream);
  }

  /** Ends the connection because of the server or the network, and stops the streams it holds. */
  @Override
  public void fail(ConnectionClosed.Kind kind, String detail) {
    if (!closing.get() && events.close(kind, detail)) {
      abortExchanges();
    }
  }

  /** Learns the protocol version from the initialize result on its way to the session actor. */
  private JsonRpcMessage inspect(JsonRpcMessage message) {
    if (message instanceof JsonRpcResponse response
        && !response.isError()
        && JsonRpcIds.same(response.id(), initializeId)) {
      JsonNode version = response.result().get("protocolVersion");
      if (version != null && version.isTextual()) {
        protocolVersion = version.textValue();
      }
    }
    return message;
  }

  @Override
  public void deliver(SseEvent event) {
    deliverEvent(event, null);
  }

  private void deliverEvent(SseEvent event, JsonNode relatedRequestId) {
    if (SseEvent.DEFAULT_TYPE.equals(event.type())) {
      events.payload(
          event.data().getBytes(StandardCharsets.UTF_8), relatedRequestId, this::inspect);
    } else {
      log.debug("{}: ignored a server-sent event of type {}", events.name(), event.type());
    }
  }

  /**
   * One POST: its handler decides between a JSON body and an SSE stream when the headers arrive. A
   * JSON answer is handled as soon as its body is read, on the HTTP client's thread: the future
   * {@code sendAsync} returns completes only after a hop to the common pool, so it reports only the
   * failures that come before an answer's headers.
   */
  private final class Post implements HttpResponse.BodyHandler<byte[]> {

    final CompletableFuture<Void> accepted = new CompletableFuture<>();
    private final JsonNode requestId;
    private final boolean initialize;
    private final boolean sentSessionId;
    private final AtomicBoolean settled = new AtomicBoolean();
    private volatile boolean headersCame;
    private volatile boolean streaming;

    Post(JsonNode requestId, boolean initialize, boolean sentSessionId) {
      this.requestId = requestId;
      this.initialize = initialize;
      this.sentSessionId = sentSessionId;
    }

    boolean headersCame() {
      return headersCame;
    }

    @Override
    public BodySubscriber<byte[]> apply(ResponseInfo info) {
      headersCame = true;
      if (initialize) {
        info.headers().firstValue(HttpTransport.SESSION_ID_HEADER).ifPresent(id -> sessionId = id);
      }
      if (HttpTransport.isSuccess(info.statusCode())
          && HttpTransport.isEventStream(info.headers())) {
        streaming = true;
        ResponseStream handler = new ResponseStream(requestId);
        SseStream stream = new SseStream(handler, limits.maxMessageBytes());
        handler.stream = stream;
        streams.add(stream);
        if (closing.get()) {
          stream.cancel();
        }
        accepted.complete(null);
        return BodySubscribers.mapping(stream.bodySubscriber(), ended -> null);
      }
      BoundedBodySubscriber body = BoundedBodySubscriber.of(info, limits.maxMessageBytes());
      body.getBody()
          .whenComplete(
              (bytes, failure) -> {
                if (settled.compareAndSet(false, true)) {
                  if (failure != null) {
                    failed(failure);
                  } else {
                    answered(info, bytes);
                  }
                }
              });
      return body;
    }

    /** The end of the exchange: only a failure the body did not report is left to handle. */
    void finish(HttpResponse<byte[]> response, Throwable failure) {
      if (streaming) {
        return; // the stream reports its own end
      }
      if (failure != null && settled.compareAndSet(false, true)) {
        failed(failure);
      }
    }

    private void failed(Throwable failure) {
      if (closing.get()) {
        accepted.completeExceptionally(
            new IOException(events.name() + ": the connection was closed"));
        return;
      }
      String detail = "POST failed: " + HttpTransport.describe(failure);
      if (HttpAnswers.answeredTooLarge(events, requestId, failure)) {
        accepted.complete(null);
        return;
      }
      if (HttpAnswers.failsTheCallOnly(failure)) {
        accepted.completeExceptionally(new IOException(events.name() + ": " + detail));
        return;
      }
      // the listener learns of the loss first, so that it does not retry on this connection
      fail(ConnectionClosed.Kind.TRANSPORT_ERROR, detail);
      accepted.completeExceptionally(
          new IOException(events.name() + ": " + detail, Failures.unwrap(failure)));
    }

    private void answered(ResponseInfo response, byte[] body) {
      int status = response.statusCode();
      if (HttpTransport.isSuccess(status)) {
        if (body.length > 0 && HttpTransport.isJson(response.headers())) {
          if (!events.payload(body, requestId, StreamableHttpConnection.this::inspect)
              && requestId != null) {
            events.message(BadAnswers.to(requestId, "its body holds no response to it"), requestId);
          }
        } else if (body.length > 0) {
          String type = response.headers().firstValue("Content-Type").orElse("(none)");
          log.warn("{}: ignored a {} answer of type {}", events.name(), status, type);
          if (requestId != null) {
            events.message(BadAnswers.to(requestId, "a body of type " + type), requestId);
          }
        }
        accepted.complete(null);
      } else if (status == 404 && sentSessionId) {
        String detail = "HTTP 404 for our session id: the server no longer knows the session";
        fail(ConnectionClosed.Kind.SESSION_NOT_FOUND, detail);
        accepted.completeExceptionally(new IOException(events.name() + ": " + detail));
      } else if (requestId != null && HttpAnswers.deliverErrorAnswer(events, body, requestId)) {
        accepted.complete(null);
      } else {
        accepted.completeExceptionally(
            new IOException(
                events.name() + ": HTTP " + status + ": " + HttpTransport.preview(body)));
      }
    }
  }

  /** The SSE stream answering one POST. */
  private final class ResponseStream implements SseStream.Handler {

    private final JsonNode requestId;
    private volatile SseStream stream;

    ResponseStream(JsonNode requestId) {
      this.requestId = requestId;
    }

    @Override
    public void onEvent(SseEvent event) {
      deliverEvent(event, requestId);
    }

    @Override
    public void onEnd(Throwable error) {
      streams.remove(stream);
      if (HttpAnswers.answeredTooLarge(events, requestId, error)) {
        log.warn("{}: {}", events.name(), error.getMessage());
      } else if (error != null) {
        fail(
            ConnectionClosed.Kind.TRANSPORT_ERROR,
            "response stream broke: " + HttpTransport.describe(error));
      }
    }
  }
}
