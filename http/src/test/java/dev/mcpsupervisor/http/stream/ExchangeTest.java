package dev.mcpsupervisor.http.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * An exchange: a plain answer without a stream, an expiry before the first event, and a stream with
 * a client that does not read: bounded by bytes, never lossy.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExchangeTest {

  private static final int MESSAGES = 100;

  private final ActorTestKit testKit = ActorTestKit.create();
  private final Materializer materializer = Materializer.matFromSystem(testKit.system());

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  private static ObjectNode response(int id) {
    ObjectNode json = JsonRpcCodec.emptyObject().put("jsonrpc", "2.0").put("id", id);
    json.putObject("result").put("text", "y".repeat(200));
    return json;
  }

  /** Opens a stream and sends {@link #MESSAGES} responses and the end while nobody reads. */
  private Exchange.Head fillWhileNobodyReads(Exchange exchange) throws Exception {
    exchange.tell(Exchange.Opened.INSTANCE);
    Exchange.Head head = exchange.head().toCompletableFuture().get(5, TimeUnit.SECONDS);
    for (int id = 1; id <= MESSAGES; id++) {
      exchange.tell(new Exchange.Message(response(id)));
    }
    exchange.tell(new Exchange.Complete(List.of()));
    return head;
  }

  @Test
  void aSlowReaderPastTheByteBoundHasItsStreamEndedWithAnErrorAndCounted() throws Exception {
    AtomicInteger overflows = new AtomicInteger();
    // 100 responses of ~230 bytes against 4 KiB: the old count buffer (dropHead) kept the newest
    // and completed the stream normally, the first ones gone without a trace
    Exchange exchange = Exchange.open(materializer, 4096, overflows::incrementAndGet);
    Exchange.Head head = fillWhileNobodyReads(exchange);
    // the stream ends on its own, before anyone reads
    exchange.terminated().toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertEquals(1, overflows.get());
    ExecutionException failed =
        assertThrows(
            ExecutionException.class,
            () ->
                head.rest()
                    .runWith(Sink.seq(), materializer)
                    .toCompletableFuture()
                    .get(5, TimeUnit.SECONDS));
    assertInstanceOf(StreamBufferStage.Overflow.class, failed.getCause());
  }

  @Test
  void withinTheBoundEveryEventArrivesInOrder() throws Exception {
    AtomicInteger overflows = new AtomicInteger();
    Exchange exchange = Exchange.open(materializer, 1024 * 1024, overflows::incrementAndGet);
    Exchange.Head head = fillWhileNobodyReads(exchange);
    List<Exchange.Event> rest =
        head.rest()
            .runWith(Sink.seq(), materializer)
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS);
    assertEquals(MESSAGES + 1, rest.size());
    for (int i = 0; i < MESSAGES; i++) {
      assertEquals(i + 1, ((Exchange.Message) rest.get(i)).json().get("id").asInt());
    }
    assertInstanceOf(Exchange.Complete.class, rest.get(MESSAGES));
    assertEquals(0, overflows.get());
  }

  @Test
  void aPlainAnswerCompletesTheHeadAtOnceAndLaterEventsAreIgnored() throws Exception {
    Exchange exchange = Exchange.open(materializer, 4096, () -> {});
    Exchange.Complete answer = new Exchange.Complete(List.of(response(1)));
    exchange.tell(answer);
    Exchange.Head head = exchange.head().toCompletableFuture().getNow(null);
    assertSame(answer, head.first(), "completed on the teller's thread");
    assertTrue(exchange.terminated().toCompletableFuture().isDone());
    exchange.tell(new Exchange.Message(response(2)));
    exchange.expire();
    assertEquals(
        List.of(),
        head.rest()
            .runWith(Sink.seq(), materializer)
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS));
  }

  @Test
  void anExchangeWithoutAFirstEventExpiresAndIgnoresWhatComesLate() throws Exception {
    Exchange exchange = Exchange.open(materializer, 4096, () -> {});
    exchange.expire();
    ExecutionException failed =
        assertThrows(
            ExecutionException.class,
            () -> exchange.head().toCompletableFuture().get(5, TimeUnit.SECONDS));
    assertInstanceOf(TimeoutException.class, failed.getCause());
    assertTrue(exchange.terminated().toCompletableFuture().isDone());
    exchange.tell(new Exchange.Complete(List.of(response(1))));
    assertTrue(exchange.head().toCompletableFuture().isCompletedExceptionally());
  }

  @Test
  void aStreamThatHasBegunDoesNotExpire() throws Exception {
    Exchange exchange = Exchange.open(materializer, 1024 * 1024, () -> {});
    exchange.tell(new Exchange.Message(response(1)));
    exchange.expire();
    exchange.tell(new Exchange.Complete(List.of(response(2))));
    Exchange.Head head = exchange.head().toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertInstanceOf(Exchange.Message.class, head.first());
    List<Exchange.Event> rest =
        head.rest()
            .runWith(Sink.seq(), materializer)
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS);
    assertEquals(1, rest.size());
    assertInstanceOf(Exchange.Complete.class, rest.get(0));
  }
}
