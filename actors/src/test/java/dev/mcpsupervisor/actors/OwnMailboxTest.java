package dev.mcpsupervisor.actors;

import static dev.mcpsupervisor.actors.SessionActorTest.progress;
import static dev.mcpsupervisor.actors.SessionActorTest.withProgressToken;
import static dev.mcpsupervisor.actors.TestSupervisor.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.ContextRoutingTest.CountingListener;
import dev.mcpsupervisor.actors.FakeConnector.FakeConnection;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.actors.delivery.ContextListener;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/**
 * A listener that is an actor's own mailbox ({@link ContextListener.OwnMailbox}): the context's
 * deliveries reach that actor straight (no delivery actor), in the order a delivery actor keeps.
 */
class OwnMailboxTest {

  /** The owning actor: notes what it took, then does what a delivery actor would. */
  private static Behavior<ContextDelivery.Command> owner(
      String contextId, ContextListener listener, Queue<String> taken) {
    return Behaviors.receive(
        (context, message) -> {
          taken.add(message.getClass().getSimpleName());
          ContextDelivery.deliver(message, listener, contextId, context.getLog());
          return Behaviors.same();
        });
  }

  private record Mailbox(CountingListener counting, ActorRef<ContextDelivery.Command> mailbox)
      implements ContextListener.OwnMailbox {
    @Override
    public void onNotification(String server, JsonRpcNotification notification) {
      counting.onNotification(server, notification, null);
    }

    @Override
    public void onNotification(String server, JsonRpcNotification notification, String tag) {
      counting.onNotification(server, notification, tag);
    }

    @Override
    public CompletionStage<JsonRpcResponse> onServerRequest(String server, JsonRpcRequest request) {
      return counting.onServerRequest(server, request, null);
    }
  }

  @Test
  void everyNotificationOfACallReachesTheOwnMailboxBeforeItsAnswerCompletes() {
    int notifications = 10;
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      test.connector.answerCalls =
          request -> {
            FakeConnection connection = test.connector.connections.peek();
            String token = request.params().path("_meta").path("progressToken").asText();
            for (int i = 1; i <= notifications; i++) {
              connection.push(progress(token, i), request.id());
            }
            return JsonRpcResponse.success(request.id(), FakeConnector.text("done"));
          };
      int contexts = 200;
      List<CountingListener> listeners = new ArrayList<>();
      List<Queue<String>> taken = new ArrayList<>();
      for (int c = 0; c < contexts; c++) {
        CountingListener counting = new CountingListener();
        Queue<String> seen = new ConcurrentLinkedQueue<>();
        ActorRef<ContextDelivery.Command> mailbox =
            await(test.supervisor.spawn(owner("own-" + c, counting, seen), "own-" + c));
        test.supervisor.register("own-" + c, new Mailbox(counting, mailbox));
        listeners.add(counting);
        taken.add(seen);
      }
      List<CompletableFuture<Integer>> seenAtAnswer = new ArrayList<>();
      for (int c = 0; c < contexts; c++) {
        CountingListener listener = listeners.get(c);
        ObjectNode params = (ObjectNode) withProgressToken("tok-" + c);
        seenAtAnswer.add(
            test.supervisor
                .request("own-" + c, "alpha", McpMethods.TOOLS_CALL, params, null)
                .toCompletableFuture()
                .thenApply(answer -> listener.notifications.get()));
      }
      for (int c = 0; c < contexts; c++) {
        assertEquals(notifications, (int) await(seenAtAnswer.get(c)), "all before the answer");
        List<String> kinds = List.copyOf(taken.get(c));
        assertEquals(notifications, kinds.stream().filter("Notification"::equals).count());
        assertEquals("Answer", kinds.get(kinds.size() - 1), "the answer came through it, last");
      }
      await(test.supervisor.releaseAll("own-0")); // its mailbox is told Retire, and ignores it
    }
  }

  @Test
  void onceReleasedAnswersStillPassAndServerRequestsAreRefused() {
    ActorTestKit testKit = ActorTestKit.create();
    try {
      TestProbe<ContextDelivery.ServerRequestAnswer> session = testKit.createTestProbe();
      TestProbe<JsonRpcResponse> caller = testKit.createTestProbe();
      JsonRpcRequest asked =
          new JsonRpcRequest(
              IntNode.valueOf(7), "sampling/createMessage", JsonRpcCodec.emptyObject());
      ContextDelivery.deliverReleased(
          new ContextDelivery.ServerRequest("alpha", asked, null, session.getRef()), "ctx");
      ContextDelivery.ServerRequestAnswer refused =
          session.expectMessageClass(ContextDelivery.ServerRequestAnswer.class);
      assertEquals("7", refused.localId());
      assertTrue(refused.response().error().message().contains("context ctx was released"));
      JsonRpcResponse answer = JsonRpcResponse.success(IntNode.valueOf(1), FakeConnector.text("x"));
      ContextDelivery.deliverReleased(
          new ContextDelivery.Answer(answer, caller.getRef()::tell), "ctx");
      assertEquals(answer, caller.receiveMessage());
    } finally {
      testKit.shutdownTestKit();
    }
  }
}
