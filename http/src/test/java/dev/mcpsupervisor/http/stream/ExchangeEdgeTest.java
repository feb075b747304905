package dev.mcpsupervisor.http.stream;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** An exchange served on another node, seen from this node's end of it. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExchangeEdgeTest {

  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void anExchangeStillServedElsewhereAtTheDrainDeadlineEndsWithTheErrorOfItsOwnersLoss() {
    TestProbe<Exchange.Event> client = testKit.createTestProbe();
    TestProbe<Object> owner = testKit.createTestProbe();
    Exchange.Event ownerGone = new Exchange.Complete(List.of(error()));
    ActorRef<Exchange.Event> edge =
        testKit.spawn(ExchangeEdge.create(ProbeSink.of(client), ownerGone));
    edge.tell(new ExchangeEdge.ServedBy(owner.ref(), 1));
    Exchange.Event progress = new Exchange.Message(JsonRpcCodec.emptyObject());
    edge.tell(progress);
    client.expectMessage(progress);

    edge.tell(ExchangeEdge.Abandon.INSTANCE);

    client.expectMessage(ownerGone);
    client.expectTerminated(edge);
    owner.stop();
    client.expectNoMessage(Duration.ofMillis(200));
  }

  /**
   * Two passes of one request, told from two nodes, come in either order: the edge watches the desk
   * of the later pass, so the loss of the earlier one, which passed the request on, means nothing
   * to it.
   */
  @Test
  void anEarlierPassToldLateDoesNotTakeTheWatchFromTheLaterOne() {
    TestProbe<Exchange.Event> client = testKit.createTestProbe();
    TestProbe<Object> first = testKit.createTestProbe();
    TestProbe<Object> second = testKit.createTestProbe();
    Exchange.Event ownerGone = new Exchange.Complete(List.of(error()));
    ActorRef<Exchange.Event> edge =
        testKit.spawn(ExchangeEdge.create(ProbeSink.of(client), ownerGone));

    edge.tell(new ExchangeEdge.ServedBy(second.ref(), 2));
    edge.tell(new ExchangeEdge.ServedBy(first.ref(), 1));
    first.stop();
    client.expectNoMessage(Duration.ofMillis(300));

    second.stop();
    client.expectMessage(ownerGone);
    client.expectTerminated(edge);
  }

  private static ObjectNode error() {
    ObjectNode error = JsonRpcCodec.emptyObject();
    error.put("message", "the gateway node that served this request is gone");
    return error;
  }
}
