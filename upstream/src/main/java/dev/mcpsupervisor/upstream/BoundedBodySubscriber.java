package dev.mcpsupervisor.upstream;

import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * An HTTP body read into a byte array of at most {@code limit} bytes. Past the limit (or when the
 * Content-Length announces more) it stops reading, drops the connection and fails with {@link
 * MessageTooLargeException}: a server answering gigabytes costs the gateway no more than the limit.
 */
final class BoundedBodySubscriber implements BodySubscriber<byte[]> {

  private static final int INITIAL_BUFFER_BYTES = 8 * 1024;

  private final int limit;
  private final CompletableFuture<byte[]> body = new CompletableFuture<>();
  private Flow.Subscription subscription;
  private byte[] buffer;
  private int length;

  private BoundedBodySubscriber(int limit, long announcedLength) {
    this.limit = limit;
    // the announced length sizes the buffer only when it is within the limit: it may lie
    int initial = announcedLength >= 0 ? (int) announcedLength : INITIAL_BUFFER_BYTES;
    this.buffer = new byte[Math.max(1, Math.min(initial, INITIAL_BUFFER_BYTES * 128))];
    if (announcedLength > limit) {
      body.completeExceptionally(tooLarge());
    }
  }

  /** A body subscriber for the answer {@code info} describes, bounded by {@code limit} bytes. */
  static BoundedBodySubscriber of(ResponseInfo info, int limit) {
    long announced = info.headers().firstValueAsLong("Content-Length").orElse(-1);
    return new BoundedBodySubscriber(limit, announced);
  }

  private MessageTooLargeException tooLarge() {
    return new MessageTooLargeException("HTTP body", limit);
  }

  @Override
  public CompletionStage<byte[]> getBody() {
    return body;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    this.subscription = subscription;
    if (body.isDone()) {
      subscription.cancel();
    } else {
      subscription.request(Long.MAX_VALUE);
    }
  }

  @Override
  public void onNext(List<ByteBuffer> buffers) {
    if (body.isDone()) {
      return;
    }
    for (ByteBuffer chunk : buffers) {
      int count = chunk.remaining();
      if (count > limit - length) {
        subscription.cancel();
        buffer = null;
        body.completeExceptionally(tooLarge());
        return;
      }
      if (length + count > buffer.length) {
        buffer =
            Arrays.copyOf(
                buffer, (int) Math.min(limit, Math.max(2L * buffer.length, length + count)));
      }
      chunk.get(buffer, length, count);
      length += count;
    }
  }

  @Override
  public void onError(Throwable failure) {
    buffer = null;
    body.completeExceptionally(failure);
  }

  @Override
  public void onComplete() {
    if (!body.isDone()) {
      body.complete(length == buffer.length ? buffer : Arrays.copyOf(buffer, length));
    }
    buffer = null;
  }
}
