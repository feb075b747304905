package dev.mcpsupervisor.http.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The replay buffer's bounds and pass-through, with probes standing in for the connections. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StreamResumptionTest {

  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  private static StreamResumption replay(int maxEvents, long maxBytes, String version) {
    StreamResumption replay =
        new StreamResumption(
            new StreamResumption.Settings(
                Duration.ZERO, Duration.ofSeconds(1), maxEvents, maxBytes, 4, Duration.ZERO),
            (delay, ref) -> {});
    replay.enableFor(version);
    return replay;
  }

  /** A message of 35 bytes of JSON: two do not fit in 60. */
  private static ObjectNode note(int n) {
    return JsonRpcCodec.emptyObject().put("method", "notifications/n").put("n", n);
  }

  private static String idOf(TestProbe<Exchange.Event> probe) {
    return assertInstanceOf(Exchange.Message.class, probe.receiveMessage()).eventId();
  }

  @Test
  void theOldestEventsAreEvictedBeyondTheByteBoundAndAnEvictedIdIsRefused() {
    StreamResumption replay = replay(100, 60, ProtocolVersions.V2025_11_25);
    TestProbe<Exchange.Event> get = testKit.createTestProbe();
    replay.openedGet(ProbeSink.of(get));
    assertInstanceOf(Exchange.Opened.class, get.receiveMessage());
    String priming = assertInstanceOf(Exchange.Primed.class, get.receiveMessage()).eventId();
    replay.tell(ProbeSink.of(get), new Exchange.Message(note(1)));
    String first = idOf(get);
    replay.tell(ProbeSink.of(get), new Exchange.Message(note(2)));
    String second = idOf(get);
    replay.tell(ProbeSink.of(get), new Exchange.Message(note(3)));
    String third = idOf(get);
    assertNotEquals(second, third);

    TestProbe<Exchange.Event> refused = testKit.createTestProbe();
    assertEquals(
        410, replay.resume(priming, ProbeSink.of(refused)).status(), "event 1 was evicted");
    assertEquals(410, assertInstanceOf(Exchange.Refused.class, refused.receiveMessage()).status());
    assertEquals(410, replay.resume(first, ProbeSink.of(refused)).status(), "so was event 2");

    TestProbe<Exchange.Event> resumed = testKit.createTestProbe();
    assertNull(replay.resume(second, ProbeSink.of(resumed)));
    assertInstanceOf(Exchange.Opened.class, resumed.receiveMessage());
    assertEquals(third, idOf(resumed), "event 3 only: two do not fit in 60 bytes");
    assertInstanceOf(Exchange.Complete.class, get.receiveMessage(), "the old connection ends");
  }

  @Test
  void aStreamPrimedByAServerMessageStaysOpenWhenItsPrimingTimerFiresLater() {
    List<ExchangeSink> timers = new ArrayList<>();
    StreamResumption replay =
        new StreamResumption(
            new StreamResumption.Settings(
                Duration.ofMillis(100), Duration.ofSeconds(1), 10, 1000, 4, Duration.ZERO),
            (delay, ref) -> timers.add(ref));
    replay.enableFor(ProtocolVersions.V2025_11_25);
    TestProbe<Exchange.Event> post = testKit.createTestProbe();
    replay.opened(ProbeSink.of(post), true);
    replay.tell(ProbeSink.of(post), new Exchange.Message(note(1)));
    assertInstanceOf(Exchange.Primed.class, post.receiveMessage());
    idOf(post);

    assertEquals(List.of(ProbeSink.of(post)), timers);
    replay.timer(ProbeSink.of(post)); // the priming timer, after the message primed the stream
    post.expectNoMessage(Duration.ofMillis(100));
    replay.tell(ProbeSink.of(post), new Exchange.Complete(List.of(note(2))));
    idOf(post);
    assertInstanceOf(Exchange.Complete.class, post.receiveMessage());
  }

  @Test
  void aStreamAnsweredBeforeItsPrimingTimerCancelsTheTimer() {
    List<ExchangeSink> started = new ArrayList<>();
    List<ExchangeSink> cancelled = new ArrayList<>();
    StreamResumption replay =
        new StreamResumption(
            new StreamResumption.Settings(
                Duration.ofMillis(100), Duration.ofSeconds(1), 10, 1000, 4, Duration.ZERO),
            new StreamResumption.PostTimers() {
              @Override
              public void start(Duration delay, ExchangeSink post) {
                started.add(post);
              }

              @Override
              public void cancel(ExchangeSink post) {
                cancelled.add(post);
              }
            });
    replay.enableFor(ProtocolVersions.V2025_11_25);
    TestProbe<Exchange.Event> post = testKit.createTestProbe();
    replay.opened(ProbeSink.of(post), true);
    replay.tell(ProbeSink.of(post), new Exchange.Complete(List.of(note(1))));
    assertInstanceOf(Exchange.Complete.class, post.receiveMessage(), "a plain JSON answer");
    assertEquals(List.of(ProbeSink.of(post)), started);
    assertEquals(started, cancelled, "its timer would fire into the session for nothing");
  }

  @Test
  void streamsOfClientsThatDoNotResumePassEverythingThrough() {
    StreamResumption replay = replay(100, 1000, ProtocolVersions.V2025_06_18);
    TestProbe<Exchange.Event> post = testKit.createTestProbe();
    replay.opened(ProbeSink.of(post), true);
    replay.tell(ProbeSink.of(post), new Exchange.Message(note(1)));
    assertNull(assertInstanceOf(Exchange.Message.class, post.receiveMessage()).eventId());
    replay.tell(ProbeSink.of(post), new Exchange.Complete(List.of(note(2))));
    assertEquals(
        1, assertInstanceOf(Exchange.Complete.class, post.receiveMessage()).responses().size());
  }

  @Test
  void aPostStreamIsKeptResumedAndForgottenAlikeAfterEveryStreamWasForgotten() {
    StreamResumption replay = replay(100, 1000, ProtocolVersions.V2025_11_25);
    TestProbe<Exchange.Event> nothing = testKit.createTestProbe();
    assertEquals(400, replay.resume("x-1-0", ProbeSink.of(nothing)).status(), "no stream yet");
    String firstPriming = null;
    for (int round = 0; round < 2; round++) {
      TestProbe<Exchange.Event> post = testKit.createTestProbe();
      replay.opened(ProbeSink.of(post), true);
      assertTrue(replay.carries(ProbeSink.of(post)));
      String priming = assertInstanceOf(Exchange.Primed.class, post.receiveMessage()).eventId();
      firstPriming = firstPriming == null ? priming : firstPriming;
      replay.tell(ProbeSink.of(post), new Exchange.Message(note(1)));
      idOf(post);
      assertTrue(replay.detached(ProbeSink.of(post)), "kept for the client's return");
      replay.tell(ProbeSink.of(post), new Exchange.Complete(List.of(note(2))));
      post.expectNoMessage(Duration.ofMillis(20));

      TestProbe<Exchange.Event> resumed = testKit.createTestProbe();
      assertNull(replay.resume(priming, ProbeSink.of(resumed)));
      assertInstanceOf(Exchange.Opened.class, resumed.receiveMessage());
      idOf(resumed);
      idOf(resumed);
      assertInstanceOf(Exchange.Complete.class, resumed.receiveMessage());
      assertFalse(replay.detached(ProbeSink.of(resumed)), "delivered: forgotten");
      assertFalse(replay.carries(ProbeSink.of(post)));
      assertEquals(410, replay.resume(priming, ProbeSink.of(nothing)).status());
    }
    assertEquals(410, replay.resume(firstPriming, ProbeSink.of(nothing)).status());
  }

  @Test
  void theSharedPassThroughKeepsNothingWhateverItIsTold() {
    StreamResumption shared = StreamResumption.DISABLED;
    TestProbe<Exchange.Event> post = testKit.createTestProbe();
    shared.opened(ProbeSink.of(post), true);
    assertFalse(shared.carries(ProbeSink.of(post)));
    shared.tell(ProbeSink.of(post), new Exchange.Message(note(1)));
    assertNull(assertInstanceOf(Exchange.Message.class, post.receiveMessage()).eventId());
    assertFalse(shared.detached(ProbeSink.of(post)));
    TestProbe<Exchange.Event> get = testKit.createTestProbe();
    shared.openedGet(ProbeSink.of(get));
    assertInstanceOf(Exchange.Opened.class, get.receiveMessage());
    get.expectNoMessage(Duration.ofMillis(20)); // not primed: no event id
    assertEquals(400, shared.resume("x-1-0", ProbeSink.of(get)).status());
    assertFalse(shared.enabled());
  }
}
