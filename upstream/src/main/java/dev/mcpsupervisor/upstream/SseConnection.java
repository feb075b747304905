package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.config.UpstreamLimits;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
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
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One legacy HTTP+SSE session: a GET stream whose first {@code endpoint} event names the URL to
 * POST messages to (resolved against the stream's URL, and only on the same origin, so configured
 * headers never go elsewhere); messages arrive as {@code message} events on the stream. The
 * stream's end is the session's end ({@code TRANSPORT_ERROR}); a 404 to a POST means the server
 * forgot the session ({@code SESSION_NOT_FOUND}).
 */
final class SseConnection implements UpstreamConnection, SseStream.Handler {

  private static final Logger log = LoggerFactory.getLogger(SseConnection.class);
  private static final String ENDPOINT_EVENT = "endpoint";

  private final HttpClient client;
  private final URI streamUrl;
  private final List<Map.Entry<String, String>> headers;
  private final ConnectionEvents events;
  private final UpstreamLimits limits;
  private final CompletableFuture<UpstreamConnection> opened = new CompletableFuture<>();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final Set<CompletableFuture<?>> posts = ConcurrentHashMap.newKeySet();
  private volatile SseStream stream;
  private volatile URI endpoint;

  private SseConnection(
      HttpClient client,
      URI streamUrl,
      List<Map.Entry<String, String>> headers,
      String name,
      UpstreamLimits limits,
      ConnectionListener listener) {
    this.client = client;
    this.streamUrl = streamUrl;
    this.headers = headers;
    this.limits = limits;
    this.events = new ConnectionEvents(name, listener);
  }

  /**
   * GETs the stream; completes once the endpoint is known, fails if it is not within {@code
   * endpointTimeout}.
   */
  static CompletionStage<UpstreamConnection> open(
      HttpClient client,
      URI url,
      List<Map.Entry<String, String>> headers,
      String name,
      UpstreamLimits limits,
      ConnectionListener listener,
      Duration endpointTimeout) {
    SseConnection connection = new SseConnection(client, url, headers, name, limits, listener);
    HttpRequest get =
        HttpTransport.request(url, headers)
            .header("Accept", HttpTransport.EVENT_STREAM)
            .GET()
            .build();
    client
        .sendAsync(get, connection::onStreamAnswer)
        .whenComplete(connection::onStreamExchangeDone);
    return connection
        .opened
        .orTimeout(endpointTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete(
            (done, failure) -> {
              if (failure != null) {
                connection.abandon();
              }
            })
        .exceptionallyCompose(
            failure ->
                CompletableFuture.failedFuture(connection.openFailure(failure, endpointTimeout)));
  }

  private Throwable openFailure(Throwable failure, Duration endpointTimeout) {
    Throwable cause = Failures.unwrap(failure);
    if (cause instanceof TimeoutException) {
      return new IOException(events.name() + ": no endpoint event within " + endpointTimeout);
    }
    return cause;
  }

  /**
   * The connect failed: drop the stream without telling the listener of a connection it never got.
   */
  private void abandon() {
    closing.set(true);
    SseStream current = stream;
    if (current != null) {
      current.cancel();
    }
  }

  private BodySubscriber<Void> onStreamAnswer(ResponseInfo info) {
    if (info.statusCode() == 200 && HttpTransport.isEventStream(info.headers())) {
      SseStream opening = new SseStream(this, limits.maxMessageBytes());
      stream = opening;
      if (closing.get()) {
        opening.cancel();
      }
      return opening.bodySubscriber();
    }
    return BodySubscribers.replacing(null);
  }

  private void onStreamExchangeDone(HttpResponse<Void> response, Throwable failure) {
    if (stream != null) {
      return; // the stream reports its own end
    }
    if (failure != null) {
      opened.completeExceptionally(
          new IOException(
              events.name() + ": cannot open the SSE stream: " + HttpTransport.describe(failure)));
    } else {
      opened.completeExceptionally(
          new IOException(
              events.name()
                  + ": the SSE stream answered HTTP "
                  + response.statusCode()
                  + " ("
                  + response.headers().firstValue("Content-Type").orElse("no content type")
                  + ")"));
    }
  }

  @Override
  public void onEvent(SseEvent event) {
    if (ENDPOINT_EVENT.equals(event.type())) {
      onEndpoint(event.data().strip());
    } else if (SseEvent.DEFAULT_TYPE.equals(event.type())) {
      events.payload(event.data().getBytes(StandardCharsets.UTF_8), null);
    } else {
      log.debug("{}: ignored a server-sent event of type {}", events.name(), event.type());
    }
  }

  private void onEndpoint(String data) {
    if (endpoint != null) {
      log.warn("{}: ignored a second endpoint event", events.name());
      return;
    }
    URI resolved;
    try {
      resolved = streamUrl.resolve(data);
    } catch (IllegalArgumentException e) {
      opened.completeExceptionally(
          new IOException(events.name() + ": the endpoint event holds no URL"));
      return;
    }
    if (!sameOrigin(resolved, streamUrl)) {
      opened.completeExceptionally(
          new IOException(
              events.name()
                  + ": the endpoint event names another origin ("
                  + resolved.getScheme()
                  + "://"
                  + resolved.getHost()
                  + ":"
                  + resolved.getPort()
                  + ")"));
      return;
    }
    endpoint = resolved;
    opened.complete(this);
  }

  private static boolean sameOrigin(URI a, URI b) {
    return Objects.equals(a.getScheme(), b.getScheme())
        && Objects.equals(a.getHost(), b.getHost())
        && port(a) == port(b);
  }

  private static int port(URI uri) {
    if (uri.getPort() != -1) {
      return uri.getPort();
    }
    return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
  }

  @Override
  public void onEnd(Throwable error) {
    if (!opened.isDone()) {
      opened.completeExceptionally(
          new IOException(
              events.name()
                  + ": the SSE stream ended before the endpoint event"
                  + (error == null ? "" : ": " + HttpTransport.describe(error))));
      return;
    }
    if (!closing.get()) {
      events.close(
          ConnectionClosed.Kind.TRANSPORT_ERROR,
          error == null
              ? "the SSE stream ended"
              : "the SSE stream broke: " + HttpTransport.describe(error));
      posts.forEach(post -> post.cancel(true));
    }
  }

  @Override
  public CompletionStage<Void> send(JsonRpcMessage message) {
    if (closing.get() || events.isClosed()) {
      return events.sendAfterClose();
    }
    HttpRequest post =
        HttpTransport.request(endpoint, headers)
            .header("Content-Type", HttpTransport.JSON)
            .timeout(limits.httpTimeout())
            .POST(HttpRequest.BodyPublishers.ofByteArray(JsonRpcCodec.toBytes(message)))
            .build();
    CompletableFuture<HttpResponse<byte[]>> exchange =
        client.sendAsync(post, info -> BoundedBodySubscriber.of(info, limits.maxMessageBytes()));
    posts.add(exchange);
    return exchange
        .handle(
            (response, failure) -> {
              posts.remove(exchange);
              if (failure != null) {
                return sendFailed(failure);
              }
              if (HttpTransport.isSuccess(response.statusCode())) {
                return CompletableFuture.<Void>completedFuture(null);
              }
              String detail =
                  "POST answered HTTP "
                      + response.statusCode()
                      + ": "
                      + HttpTransport.preview(response.body());
              if (response.statusCode() == 404) {
                events.close(ConnectionClosed.Kind.SESSION_NOT_FOUND, detail);
              }
              return CompletableFuture.<Void>failedFuture(
                  new IOException(events.name() + ": " + detail));
            })
        .thenCompose(result -> result);
  }

  private CompletableFuture<Void> sendFailed(Throwable failure) {
    if (closing.get()) {
      return CompletableFuture.failedFuture(
          new IOException(events.name() + ": the connection was closed"));
    }
    String detail = "POST failed: " + HttpTransport.describe(failure);
    if (HttpTransport.isUnreachable(failure)) {
      events.close(ConnectionClosed.Kind.TRANSPORT_ERROR, detail);
    }
    // a broken POST often means the stream is breaking too: its end is reported before this failure
    return events.failedAfterClose(
        new IOException(events.name() + ": " + detail, Failures.unwrap(failure)));
  }

  @Override
  public CompletionStage<Void> close() {
    if (closing.compareAndSet(false, true)) {
      events.close(ConnectionClosed.Kind.CLOSED_BY_US, "closed by the supervisor");
      SseStream current = stream;
      if (current != null) {
        current.cancel();
      }
      posts.forEach(post -> post.cancel(true));
    }
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public OptionalLong pid() {
    return OptionalLong.empty();
  }
}
