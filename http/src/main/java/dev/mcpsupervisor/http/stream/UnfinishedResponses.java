package dev.mcpsupervisor.http.stream;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The response streams the gateway has open, so a stop can wait until every one is written out: a
 * session answering its last call only tells the stream to end, and Pekko's connection termination
 * cuts a chunked response that is still being written.
 */
public final class UnfinishedResponses {

  private final Set<CompletableFuture<Void>> open = ConcurrentHashMap.newKeySet();

  /** How many exchanges were ever tracked: one opened during a grace restarts the wait. */
  private final AtomicLong tracked = new AtomicLong();

  /** Counts {@code exchange} as open until its stream has terminated. */
  public Exchange track(Exchange exchange) {
    CompletableFuture<Void> done = exchange.terminated().toCompletableFuture();
    tracked.incrementAndGet();
    open.add(done);
    done.whenComplete((ok, failure) -> open.remove(done));
    return exchange;
  }

  int size() {
    return open.size();
  }

  /**
   * Completes once no stream is open and {@link #FLUSH_GRACE} has passed with none opened, or at
   * {@code deadline}. Not only the streams open now: a draining cluster node still takes a
   * session's requests (and passes them on), so an exchange may open while the others finish, and
   * the connections' termination that follows would cut it. The grace is for the last frames
   * between the stream's end and the socket (Pekko's rendering, the TCP write): nothing signals
   * when those are out.
   */
  public CompletionStage<Void> allClosed(Duration deadline) {
    return untilNoneOpen().completeOnTimeout(null, deadline.toMillis(), TimeUnit.MILLISECONDS);
  }

  private CompletableFuture<Void> untilNoneOpen() {
    long before = tracked.get();
    return CompletableFuture.allOf(open.toArray(CompletableFuture[]::new))
        .thenCompose(
            allEnded ->
                CompletableFuture.runAsync(
                    () -> {},
                    CompletableFuture.delayedExecutor(
                        FLUSH_GRACE.toMillis(), TimeUnit.MILLISECONDS)))
        .thenCompose(
            graced ->
                tracked.get() == before && open.isEmpty()
                    ? CompletableFuture.<Void>completedFuture(null)
                    : untilNoneOpen());
  }

  static final Duration FLUSH_GRACE = Duration.ofMillis(200);
}
