package dev.mcpsupervisor.http.stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.Materializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What a stop waits for before the connections close: every exchange, those opened while it waits
 * included (a draining cluster node still takes a session's requests and passes them on).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnfinishedResponsesTest {

  private final ActorTestKit testKit = ActorTestKit.create();
  private final Materializer materializer = Materializer.matFromSystem(testKit.system());

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void aStopWaitsForAnExchangeOpenedWhileItWaits() throws Exception {
    UnfinishedResponses open = new UnfinishedResponses();
    Exchange first = open.track(exchange());
    CompletableFuture<Void> closed = open.allClosed(Duration.ofSeconds(30)).toCompletableFuture();
    Exchange late = open.track(exchange());
    first.expire();
    // the first one's end and its grace pass: the late one is still open, so the wait goes on
    long window = UnfinishedResponses.FLUSH_GRACE.toMillis() * 3;
    assertThrows(TimeoutException.class, () -> closed.get(window, TimeUnit.MILLISECONDS));
    late.expire();
    closed.get(5, TimeUnit.SECONDS);
  }

  @Test
  void withNothingOpenItCompletesAfterTheGraceAndTheDeadlineBoundsIt() throws Exception {
    new UnfinishedResponses()
        .allClosed(Duration.ofSeconds(30))
        .toCompletableFuture()
        .get(5, TimeUnit.SECONDS);
    UnfinishedResponses open = new UnfinishedResponses();
    Exchange never = open.track(exchange());
    open.allClosed(Duration.ofMillis(300)).toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertFalse(never.terminated().toCompletableFuture().isDone(), "the deadline, not its end");
  }

  private Exchange exchange() {
    return Exchange.open(materializer, 1024, () -> {});
  }
}
