package dev.mcpsupervisor.http.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.IntNode;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.session.DownstreamSession;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeskMessagesTest {

  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void aPostReadBackOnTheServingNodeIsThePostItWas() {
    TestProbe<Exchange.Event> edge = testKit.createTestProbe();
    List<JsonRpcMessage> messages =
        List.of(
            new JsonRpcRequest(IntNode.valueOf(7), "tools/call", JsonRpcCodec.emptyObject()),
            new JsonRpcNotification("notifications/initialized", null));
    DownstreamSession.Post post =
        new DownstreamSession.Post(messages, List.of(), true, true, event -> {});

    NodeDesk.ToSession passed =
        DeskMessages.toSession(
            new NodeDesk.ForwardToSession("s1", "/mcp", Identity.ANONYMOUS, post, null),
            edge.getRef());
    DownstreamSession.Post read = (DownstreamSession.Post) DeskMessages.command(passed).get();

    assertEquals(messages, read.messages());
    assertTrue(read.batch() && read.acceptsSse());
    read.exchange().tell(new Exchange.Complete(List.of()));
    edge.expectMessage(new Exchange.Complete(List.of())); // its events go to the edge
  }

  @Test
  void aPostThatCannotBeReadIsAnsweredOnItsEdgeAndGoesNowhere() {
    TestProbe<Exchange.Event> edge = testKit.createTestProbe();
    NodeDesk.SessionPost unreadable =
        new NodeDesk.SessionPost(
            "s1",
            "/mcp",
            Identity.ANONYMOUS,
            List.of(JsonRpcCodec.emptyObject().put("hello", "world")),
            List.of(),
            false,
            false,
            edge.getRef(),
            null,
            1);

    assertTrue(DeskMessages.command(unreadable).isEmpty());
    assertEquals(400, edge.expectMessageClass(Exchange.Refused.class).status());
  }

  @Test
  void aLostNodeAnswersEachRequestOfAPostTheRetryableSessionLostError() {
    DownstreamSession.Post post =
        new DownstreamSession.Post(
            List.of(
                new JsonRpcRequest(IntNode.valueOf(1), "tools/call", JsonRpcCodec.emptyObject()),
                new JsonRpcNotification("notifications/cancelled", null),
                new JsonRpcRequest(IntNode.valueOf(2), "tools/list", null)),
            List.of(),
            true,
            false,
            event -> {});

    Exchange.Complete answered = (Exchange.Complete) DeskMessages.nodeLost(post);

    assertEquals(2, answered.responses().size(), "one answer per request, none per notification");
    answered
        .responses()
        .forEach(
            answer -> {
              assertEquals(
                  JsonRpcErrorCodes.UPSTREAM_SESSION_LOST,
                  answer.path("error").path("code").asInt());
              assertTrue(answer.path("error").path("data").path("retryable").asBoolean());
            });
    assertEquals(
        503,
        ((Exchange.Refused) DeskMessages.nodeLost(new DownstreamSession.OpenStream(e -> {})))
            .status());
  }
}
