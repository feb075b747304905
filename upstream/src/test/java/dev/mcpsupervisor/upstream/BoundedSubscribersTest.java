package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The body subscribers that bound what an upstream sends, fed by hand. */
class BoundedSubscribersTest {

  /** An upstream subscription that records a cancel. */
  private static final class Upstream implements Flow.Subscription {
    final AtomicBoolean cancelled = new AtomicBoolean();

    @Override
    public void request(long n) {}

    @Override
    public void cancel() {
      cancelled.set(true);
    }
  }

  /** Records the lines (and the end) a line subscriber gets. */
  private static final class Lines implements Flow.Subscriber<String> {
    final List<String> lines = new ArrayList<>();
    final CompletableFuture<Void> end = new CompletableFuture<>();
    Flow.Subscription subscription;

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
    }

    @Override
    public void onNext(String line) {
      lines.add(line);
    }

    @Override
    public void onError(Throwable failure) {
      end.completeExceptionally(failure);
    }

    @Override
    public void onComplete() {
      end.complete(null);
    }
  }

  private static ResponseInfo info(Map<String, List<String>> headers) {
    return new ResponseInfo() {
      @Override
      public int statusCode() {
        return 200;
      }

      @Override
      public HttpHeaders headers() {
        return HttpHeaders.of(headers, (name, value) -> true);
      }

      @Override
      public HttpClient.Version version() {
        return HttpClient.Version.HTTP_1_1;
      }
    };
  }

  private static List<ByteBuffer> chunks(String... parts) {
    return java.util.Arrays.stream(parts)
        .map(part -> ByteBuffer.wrap(part.getBytes(StandardCharsets.UTF_8)))
        .toList();
  }

  private static Throwable failureOf(CompletableFuture<?> future) {
    assertTrue(future.isCompletedExceptionally(), "failed");
    try {
      future.get();
      throw new AssertionError("not failed");
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void bodyUpToTheLimitIsReadWhole() throws Exception {
    BoundedBodySubscriber body = BoundedBodySubscriber.of(info(Map.of()), 10);
    body.onSubscribe(new Upstream());
    body.onNext(chunks("01234", "56789"));
    body.onComplete();
    assertArrayEquals(
        "0123456789".getBytes(StandardCharsets.UTF_8), body.getBody().toCompletableFuture().get());
  }

  @Test
  void bodyOneBytePastTheLimitFailsAndStopsReading() {
    BoundedBodySubscriber body = BoundedBodySubscriber.of(info(Map.of()), 10);
    Upstream upstream = new Upstream();
    body.onSubscribe(upstream);
    body.onNext(chunks("01234", "56789", "!"));
    assertTrue(upstream.cancelled.get(), "the connection is dropped");
    Throwable failure = failureOf(body.getBody().toCompletableFuture());
    assertInstanceOf(MessageTooLargeException.class, failure);
    assertEquals("HTTP body larger than maxMessageBytes (10 bytes)", failure.getMessage());
  }

  @Test
  void announcedLengthOverTheLimitFailsBeforeReading() {
    BoundedBodySubscriber body =
        BoundedBodySubscriber.of(info(Map.of("Content-Length", List.of("2147483648"))), 10);
    Upstream upstream = new Upstream();
    body.onSubscribe(upstream);
    assertTrue(upstream.cancelled.get(), "nothing is read");
    assertInstanceOf(
        MessageTooLargeException.class, failureOf(body.getBody().toCompletableFuture()));
  }

  @Test
  void linesSplitOnCrLfAndCrlfAcrossChunksAndCharacters() {
    Lines lines = new Lines();
    SseLineSubscriber body = new SseLineSubscriber(lines, 100);
    body.onSubscribe(new Upstream());
    byte[] e = "é".getBytes(StandardCharsets.UTF_8);
    body.onNext(chunks("data: a\r", "\ndata: b\rdata: c\n\nda"));
    body.onNext(List.of(ByteBuffer.wrap(new byte[] {'t', 'a', ':', ' ', e[0]})));
    body.onNext(
        List.of(ByteBuffer.wrap(new byte[] {e[1], '\n'}), ByteBuffer.wrap(new byte[] {'z'})));
    body.onComplete();
    assertEquals(List.of("data: a", "data: b", "data: c", "", "data: é", "z"), lines.lines);
    assertTrue(lines.end.isDone() && !lines.end.isCompletedExceptionally());
  }

  @Test
  void aLineOverTheBoundFailsWhileItArrives() {
    Lines lines = new Lines();
    SseLineSubscriber body = new SseLineSubscriber(lines, 8);
    Upstream upstream = new Upstream();
    body.onSubscribe(upstream);
    body.onNext(chunks("ok\n", "12345678"));
    assertFalse(upstream.cancelled.get(), "exactly the bound is fine");
    body.onNext(chunks("9"));
    assertTrue(upstream.cancelled.get(), "the connection is dropped before the line ends");
    assertEquals(List.of("ok"), lines.lines);
    assertInstanceOf(MessageTooLargeException.class, failureOf(lines.end));
    assertInstanceOf(
        MessageTooLargeException.class, failureOf(body.getBody().toCompletableFuture()));
  }

  @Test
  void cancelByTheLineSubscriberEndsTheBodyQuietly() {
    Lines lines = new Lines();
    SseLineSubscriber body = new SseLineSubscriber(lines, 100);
    Upstream upstream = new Upstream();
    body.onSubscribe(upstream);
    lines.subscription.cancel();
    body.onNext(chunks("late\n"));
    assertTrue(upstream.cancelled.get());
    assertEquals(List.of(), lines.lines);
    assertTrue(body.getBody().toCompletableFuture().isDone());
    assertFalse(body.getBody().toCompletableFuture().isCompletedExceptionally());
  }
}
