package dev.mcpsupervisor.upstream;

import java.io.UncheckedIOException;
import java.net.http.HttpResponse.BodySubscriber;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One {@code text/event-stream} response body being read: the HTTP client pushes its lines, the
 * parser turns them into events. Reports its end exactly once, unless {@link #cancel() cancelled}
 * first (then the connection is dropped and nothing more is reported).
 */
final class SseStream implements Flow.Subscriber<String> {

  /** What a stream reports, on the HTTP client's threads. */
  interface Handler {
    void onEvent(SseEvent event);

    /** The body ended: {@code error} is null for a clean end of stream. */
    void onEnd(Throwable error);
  }

  private final SseEventParser parser;
  private final Handler handler;
  private final int maxMessageBytes;
  private final AtomicBoolean finished = new AtomicBoolean();
  private volatile Flow.Subscription subscription;

  /**
   * @param maxMessageBytes the longest line, and the largest event, accepted: a longer one ends the
   *     stream with {@link MessageTooLargeException}
   */
  SseStream(Handler handler, int maxMessageBytes) {
    this.handler = handler;
    this.maxMessageBytes = maxMessageBytes;
    this.parser = new SseEventParser(handler::onEvent, maxMessageBytes);
  }

  /**
   * The body subscriber to hand to the HTTP client for this stream (lines split on CR, LF or CRLF,
   * bounded while they arrive).
   */
  BodySubscriber<Void> bodySubscriber() {
    return new SseLineSubscriber(this, maxMessageBytes);
  }

  /** Stops reading and drops the HTTP connection; nothing more is reported. Idempotent. */
  void cancel() {
    if (finished.compareAndSet(false, true)) {
      Flow.Subscription current = subscription;
      if (current != null) {
        current.cancel();
      }
    }
  }

  String lastEventId() {
    return parser.lastEventId();
  }

  long retryMillis() {
    return parser.retryMillis();
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    this.subscription = subscription;
    if (finished.get()) {
      subscription.cancel();
    } else {
      // the handler never blocks (it hands messages to an actor), so there is no reason to hold
      // lines back
      subscription.request(Long.MAX_VALUE);
    }
  }

  @Override
  public void onNext(String line) {
    if (finished.get()) {
      return;
    }
    try {
      parser.line(line);
    } catch (RuntimeException e) {
      Flow.Subscription current = subscription;
      if (current != null) {
        current.cancel();
      }
      end(e instanceof UncheckedIOException tooLarge ? tooLarge.getCause() : e);
    }
  }

  @Override
  public void onError(Throwable error) {
    end(error);
  }

  @Override
  public void onComplete() {
    end(null);
  }

  private void end(Throwable error) {
    if (finished.compareAndSet(false, true)) {
      handler.onEnd(error);
    }
  }
}
