package dev.mcpsupervisor.http.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.actors.base.SupervisionEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(30)
class OpsJournalTest {

  private final ActorTestKit testKit = ActorTestKit.create();
  private final Materializer materializer = Materializer.matFromSystem(testKit.system());

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void everyFollowerSeesEveryEntryOnceInOneOrderWhileHundredsOfThreadsRecord() throws Exception {
    OpsJournal journal = new OpsJournal();
    int threads = 200;
    int perThread = 2;
    int total = threads * perThread;
    record(journal, 3); // a replayed part before the live one
    List<CompletionStage<List<OpsJournal.Entry>>> followers = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      followers.add(
          journal.follow(i % 2 == 0 ? 0 : 3).take(total).runWith(Sink.seq(), materializer));
    }
    ExecutorService pool = Executors.newFixedThreadPool(16);
    CountDownLatch start = new CountDownLatch(1);
    for (int t = 0; t < threads; t++) {
      int thread = t;
      pool.execute(
          () -> {
            try {
              start.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            for (int i = 0; i < perThread; i++) {
              journal.record(event("s" + thread, i));
            }
          });
    }
    start.countDown();
    pool.shutdown();
    assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    for (int i = 0; i < followers.size(); i++) {
      List<OpsJournal.Entry> seen =
          followers.get(i).toCompletableFuture().get(10, TimeUnit.SECONDS);
      long first = i % 2 == 0 ? 1 : 4;
      assertEquals(
          LongStream.range(first, first + total).boxed().toList(),
          seen.stream().map(OpsJournal.Entry::seq).toList(),
          "follower " + i + ": every number once, in order");
    }
    // and what each saw is what the list holds under those numbers: one order for all
    java.util.Map<Long, OpsJournal.Entry> list = new java.util.HashMap<>();
    journal.entries().forEach(entry -> list.put(entry.seq(), entry));
    for (CompletionStage<List<OpsJournal.Entry>> follower : followers) {
      for (OpsJournal.Entry entry : follower.toCompletableFuture().get()) {
        assertEquals(list.get(entry.seq()), entry);
      }
    }
  }

  @Test
  void keepsTheLastEntriesAndReplaysThoseAfterTheLastIdSeen() throws Exception {
    OpsJournal journal = new OpsJournal(10);
    record(journal, 25);
    assertEquals(
        LongStream.rangeClosed(16, 25).boxed().toList(),
        journal.entries().stream().map(OpsJournal.Entry::seq).toList());
    assertEquals(
        LongStream.rangeClosed(21, 25).boxed().toList(),
        journal
            .follow(20)
            .take(5)
            .runWith(Sink.seq(), materializer)
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS)
            .stream()
            .map(OpsJournal.Entry::seq)
            .toList());
  }

  @Test
  void aFollowerThatFallsBehindIsEndedAndForgotten() throws Exception {
    OpsJournal journal = new OpsJournal(4);
    SinkQueueWithCancel<OpsJournal.Entry> slow =
        journal.follow(0).runWith(Sink.queue(), materializer);
    awaitFollowers(journal, 1);
    int recorded = 4 + OpsJournal.FOLLOWER_SLACK + 50;
    record(journal, recorded);
    assertEquals(0, journal.followers(), "ended once its buffer was full");
    int received = 0;
    for (; ; ) {
      Optional<OpsJournal.Entry> next = slow.pull().toCompletableFuture().get(5, TimeUnit.SECONDS);
      if (next.isEmpty()) {
        break;
      }
      received++;
      assertEquals(received, next.get().seq(), "what it got is in order, without a gap");
    }
    assertTrue(received < recorded, "it did not get everything: " + received);
  }

  @Test
  void aFollowerThatLeavesIsForgotten() throws Exception {
    OpsJournal journal = new OpsJournal();
    CompletionStage<List<OpsJournal.Entry>> one =
        journal.follow(0).take(1).runWith(Sink.seq(), materializer);
    awaitFollowers(journal, 1);
    record(journal, 1);
    assertEquals(1, one.toCompletableFuture().get(5, TimeUnit.SECONDS).size());
    awaitFollowers(journal, 0);
  }

  @Test
  void aFollowerWhoseStreamEndedOnItsOwnIsForgottenWithoutAnError() {
    BoundedSourceQueue<OpsJournal.Entry> ended =
        Source.<OpsJournal.Entry>queue(4).to(Sink.ignore()).run(materializer);
    ended.complete(); // as a client that left, before the journal forgot it
    OpsJournal.Entry entry = new OpsJournal.Entry(1, Instant.EPOCH, "ready", "s", "k", "1", "");
    assertFalse(OpsJournal.offered(ended, entry), "forgotten, and no exception for the recorder");
  }

  @Test
  void supervisionEventsAndActionsReadAsThePageShowsThem() {
    OpsJournal journal = new OpsJournal();
    journal.record(
        SupervisionEvent.now(SupervisionEvent.Kind.CIRCUIT_OPEN, "demo", "demo-1", 0, "3 failed"));
    journal.action("restart requested", "demo", "demo-1", "7", "by ops");
    List<OpsJournal.Entry> entries = journal.entries();
    assertEquals("circuit open", entries.get(0).kind());
    assertEquals("", entries.get(0).session(), "a key's event names no session");
    assertEquals("7", entries.get(1).session());
    assertEquals("by ops", entries.get(1).detail());
  }

  private static void record(OpsJournal journal, int count) {
    for (int i = 0; i < count; i++) {
      journal.record(event("demo", i));
    }
  }

  private static SupervisionEvent event(String server, long session) {
    return SupervisionEvent.now(
        SupervisionEvent.Kind.STARTED, server, server + "-k", session + 1, "");
  }

  private static void awaitFollowers(OpsJournal journal, int expected) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (journal.followers() != expected && System.nanoTime() < deadline) {
      Thread.sleep(10); // polling an observable count with a bound, not synchronizing
    }
    assertEquals(expected, journal.followers());
  }
}
