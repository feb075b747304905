package dev.mcpsupervisor.upstream;

import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Splits a {@code text/event-stream} body into lines (on CR, LF or CRLF, decoded as UTF-8) for a
 * line subscriber, like {@code BodySubscribers.fromLineSubscriber}, but counts a line's bytes while
 * it arrives: once a line passes {@code maxLineBytes} it stops reading, drops the connection and
 * fails with {@link MessageTooLargeException}, so an endless line costs no more than the bound.
 * Cancelling through the line subscriber's subscription ends the body quietly.
 */
final class SseLineSubscriber implements BodySubscriber<Void> {

  private static final int INITIAL_LINE_BYTES = 1024;

  private final Flow.Subscriber<String> lines;
  private final int maxLineBytes;
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private Flow.Subscription upstream;
  private byte[] line = new byte[INITIAL_LINE_BYTES];
  private int length;

  /** The previous chunk ended with CR: a LF first in this one belongs to it. */
  private boolean afterCarriageReturn;

  SseLineSubscriber(Flow.Subscriber<String> lines, int maxLineBytes) {
    this.lines = lines;
    this.maxLineBytes = maxLineBytes;
  }

  @Override
  public CompletionStage<Void> getBody() {
    return done;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    upstream = subscription;
    lines.onSubscribe(
        new Flow.Subscription() {
          @Override
          public void request(long n) {
            subscription.request(n); // one item is a chunk of the body, holding any number of lines
          }

          @Override
          public void cancel() {
            subscription.cancel();
            done.complete(null);
          }
        });
  }

  @Override
  public void onNext(List<ByteBuffer> chunks) {
    for (ByteBuffer chunk : chunks) {
      if (done.isDone() || !split(chunk)) {
        return;
      }
    }
  }

  /** Hands on the lines the chunk completes; false once the body was failed. */
  private boolean split(ByteBuffer chunk) {
    while (chunk.hasRemaining()) {
      if (done.isDone()) {
        return false; // cancelled by the line subscriber
      }
      if (afterCarriageReturn) {
        afterCarriageReturn = false;
        if (chunk.get(chunk.position()) == '\n') {
          chunk.get();
          continue;
        }
      }
      int start = chunk.position();
      int end = start;
      while (end < chunk.limit() && chunk.get(end) != '\n' && chunk.get(end) != '\r') {
        end++;
      }
      if (!append(chunk, end - start)) {
        return false;
      }
      if (chunk.hasRemaining()) {
        afterCarriageReturn = chunk.get() == '\r';
        emit();
      }
    }
    return true;
  }

  private boolean append(ByteBuffer chunk, int count) {
    if (count > maxLineBytes - length) {
      fail(new MessageTooLargeException("server-sent event line", maxLineBytes));
      return false;
    }
    if (length + count > line.length) {
      line =
          Arrays.copyOf(
              line, (int) Math.min(maxLineBytes, Math.max(2L * line.length, length + count)));
    }
    chunk.get(line, length, count);
    length += count;
    return true;
  }

  private void emit() {
    String text = new String(line, 0, length, StandardCharsets.UTF_8);
    length = 0;
    if (line.length > 64 * INITIAL_LINE_BYTES) {
      line =
          new byte
              [INITIAL_LINE_BYTES]; // one long line must not pin its buffer for the stream's life
    }
    lines.onNext(text);
  }

  private void fail(Throwable failure) {
    upstream.cancel();
    line = null;
    onError(failure);
  }

  // the line subscriber hears of the end before the HTTP client's future completes: the
  // connections rely on the stream's report coming first

  @Override
  public void onError(Throwable failure) {
    if (!done.isDone()) {
      lines.onError(failure);
      done.completeExceptionally(failure);
    }
  }

  @Override
  public void onComplete() {
    if (done.isDone()) {
      return;
    }
    if (length > 0) {
      emit(); // an unterminated last line, as the JDK's line subscriber hands it on
    }
    lines.onComplete();
    done.complete(null);
  }
}
