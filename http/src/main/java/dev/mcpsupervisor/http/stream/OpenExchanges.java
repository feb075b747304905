package dev.mcpsupervisor.http.stream;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The response streams the gateway has open, so a stop can wait until every one is written out: a
 * session answering its last call only tells the stream to end, and Pekko's connection termination
 * cuts a chunked response that is still being written.
 */
public final class OpenExchanges {

  private final Set<CompletableFuture<Void>> open = ConcurrentHashMap.newKeySet();

  /** Counts {@code exchange} as open until its stream has terminated. */
  public Exchange track(Exchange exchange) {
    CompletableFuture<Void> done = exchange.terminated().toCompletableFuture();
    open.add(done);
    done.whenComplete((ok, failure) -> open.remove(done));
    return exchange;
  }

  int size() {
    return open.size();
  }

  /**
   * Completes once every stream open now has terminated and {@link #FLUSH_GRACE} more has passed,
   * or at {@code deadline}. The grace is for the last frames between the stream's end and the
   * socket (Pekko's rendering, the TCP write): nothing signals when those are out.
   */
  public CompletionStage<Void> allClosed(Duration deadline) {
    return CompletableFuture.allOf(open.toArray(CompletableFuture[]::new))
        .thenCompose(
            allEnded ->
                CompletableFuture.runAsync(
                    () -> {},
                    CompletableFuture.delayedExecutor(
                        FLUSH_GRACE.toMillis(), TimeUnit.MILLISECONDS)))
        .completeOnTimeout(null, deadline.toMillis(), TimeUnit.MILLISECONDS);
  }

  static final Duration FLUSH_GRACE = Duration.ofMillis(200);
}
