package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.config.UpstreamLimits;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone GET stream of a {@link StreamableHttpConnection}: carries server-initiated
 * messages (with no related request), and is reopened with backoff (and {@code Last-Event-ID})
 * whenever it ends, for as long as the connection lives.
 */
final class StandaloneStream {

  // logs under the connection's name, as before this class was split from it
  private static final Logger log = LoggerFactory.getLogger(StreamableHttpConnection.class);
  private static final long RECONNECT_MIN_MILLIS = 250;
  private static final long RECONNECT_MAX_MILLIS = 5_000;

  /** What the stream needs of the connection it belongs to. */
  interface Owner {

    /** A request with the configured headers and the session headers. */
    HttpRequest.Builder sessionRequest();

    boolean isLive();

    boolean hasSession();

    /**
     * Aborts {@code exchange} if the connection closes before its answer's headers came (after
     * that, its body is read to the end or its stream cancelled).
     */
    <T> CompletableFuture<T> track(CompletableFuture<T> exchange, BooleanSupplier headersCame);

    /** {@code stream} is open: the connection cancels it on close. */
    void opened(SseStream stream);

    void ended(SseStream stream);

    void deliver(SseEvent event);

    /** Ends the connection because of the server or the network. */
    void fail(ConnectionClosed.Kind kind, String detail);
  }

  private final HttpClient client;
  private final UpstreamLimits limits;
  private final String name;
  private final Owner owner;
  private final AtomicBoolean started = new AtomicBoolean();
  private volatile String lastEventId = "";

  StandaloneStream(HttpClient client, UpstreamLimits limits, String name, Owner owner) {
    this.client = client;
    this.limits = limits;
    this.name = name;
    this.owner = owner;
  }

  /** Opens the stream, the first time only. */
  void start() {
    if (started.compareAndSet(false, true)) {
      open(0);
    }
  }

  /** GETs the stream; reopens it whenever it ends, while the connection lives. */
  private void open(int attempt) {
    if (!owner.isLive()) {
      return;
    }
    HttpRequest.Builder get =
        owner.sessionRequest().header("Accept", HttpTransport.EVENT_STREAM).GET();
    if (!lastEventId.isEmpty()) {
      get.header(HttpTransport.LAST_EVENT_ID_HEADER, lastEventId);
    }
    Attempt handler = new Attempt(attempt);
    owner
        .track(client.sendAsync(get.build(), handler), handler::headersCame)
        .whenComplete(handler::finish);
  }

  private void reopen(int attempt, long serverRetryMillis) {
    if (!owner.isLive()) {
      return;
    }
    long delay =
        serverRetryMillis >= 0
            ? limits.clampSseRetryMillis(serverRetryMillis)
            : Math.min(RECONNECT_MAX_MILLIS, RECONNECT_MIN_MILLIS << Math.min(attempt, 10));
    CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS)
        .execute(() -> open(attempt + 1));
  }

  /** One GET of the stream. */
  private final class Attempt implements HttpResponse.BodyHandler<Void>, SseStream.Handler {

    private final int attempt;
    private volatile SseStream stream;
    private volatile boolean headersCame;
    private volatile boolean receivedEvents;

    Attempt(int attempt) {
      this.attempt = attempt;
    }

    boolean headersCame() {
      return headersCame;
    }

    @Override
    public BodySubscriber<Void> apply(ResponseInfo info) {
      headersCame = true;
      if (info.statusCode() == 200 && HttpTransport.isEventStream(info.headers())) {
        SseStream opened = new SseStream(this, limits.maxMessageBytes());
        stream = opened;
        owner.opened(opened);
        if (!owner.isLive()) {
          opened.cancel();
        }
        return opened.bodySubscriber();
      }
      return HttpTransport.discarding();
    }

    @Override
    public void onEvent(SseEvent event) {
      receivedEvents = true;
      if (!event.lastEventId().isEmpty()) {
        lastEventId = event.lastEventId();
      }
      owner.deliver(event);
    }

    @Override
    public void onEnd(Throwable error) {
      SseStream ended = stream;
      owner.ended(ended);
      if (error != null) {
        log.debug("{}: the standalone stream broke: {}", name, HttpTransport.describe(error));
      }
      // a stream that carried events starts the backoff over
      reopen(receivedEvents ? 0 : attempt, ended.retryMillis());
    }

    void finish(HttpResponse<Void> response, Throwable failure) {
      if (stream != null || !owner.isLive()) {
        return; // an open stream reports its own end
      }
      if (failure != null) {
        if (HttpTransport.isUnreachable(failure)) {
          owner.fail(
              ConnectionClosed.Kind.TRANSPORT_ERROR,
              "server unreachable: " + HttpTransport.describe(failure));
        } else {
          reopen(attempt, -1);
        }
        return;
      }
      int status = response.statusCode();
      if (status == 405) {
        log.debug("{}: the server offers no standalone stream", name);
      } else if (status == 404 && owner.hasSession()) {
        owner.fail(
            ConnectionClosed.Kind.SESSION_NOT_FOUND,
            "HTTP 404 for our session id on the standalone stream");
      } else if (status >= 500 || status == 408 || status == 429) {
        reopen(attempt, -1);
      } else {
        log.warn("{}: no standalone stream (HTTP {})", name, status);
      }
    }
  }
}
