package dev.mcpsupervisor.http.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Server requests waiting for the client: answered, expired, withdrawn, failed, and again. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServerRequestBridgeTest {

  private final ActorTestKit testKit = ActorTestKit.create();
  private final JsonNode capabilities =
      JsonRpcCodec.emptyObject().set("sampling", JsonRpcCodec.emptyObject());

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  private ServerRequestBridge.Relayed send(
      ServerRequestBridge bridge, int upstreamId, TestProbe<JsonRpcResponse> upstream) {
    DownstreamSession.UpstreamRequest asked =
        new DownstreamSession.UpstreamRequest(
            "fx",
            new JsonRpcRequest(
                IntNode.valueOf(upstreamId), "sampling/createMessage", JsonRpcCodec.emptyObject()),
            null,
            upstream.getRef());
    ServerRequestBridge.Relayed relayed = bridge.relay(asked, capabilities);
    bridge.sent(relayed, asked);
    return relayed;
  }

  @Test
  void waitingRequestsAreTrackedAlikeAfterEveryOneWasDone() {
    ServerRequestBridge bridge = new ServerRequestBridge();
    assertFalse(
        bridge.answered(JsonRpcResponse.success(IntNode.valueOf(1), JsonRpcCodec.emptyObject())));
    bridge.expired(IntNode.valueOf(1));
    bridge.failAll("nothing waits");
    for (int round = 0; round < 2; round++) {
      TestProbe<JsonRpcResponse> upstream = testKit.createTestProbe();
      ServerRequestBridge.Relayed answered = send(bridge, 10, upstream);
      ServerRequestBridge.Relayed expired = send(bridge, 11, upstream);
      ServerRequestBridge.Relayed withdrawn = send(bridge, 12, upstream);
      assertTrue(
          bridge.answered(
              JsonRpcResponse.success(answered.downstreamId(), JsonRpcCodec.emptyObject())));
      assertEquals(10, upstream.receiveMessage().id().asInt(), "back under the upstream's id");
      bridge.expired(expired.downstreamId());
      assertFalse(
          bridge.answered(
              JsonRpcResponse.success(expired.downstreamId(), JsonRpcCodec.emptyObject())));
      JsonRpcNotification cancelled =
          new JsonRpcNotification(
              "notifications/cancelled", JsonRpcCodec.emptyObject().put("requestId", 12));
      JsonRpcNotification told = bridge.withdrawn("fx", cancelled, cancelled.params());
      assertEquals(withdrawn.downstreamId(), told.params().get("requestId"), "the client's id");
      assertNull(bridge.withdrawn("fx", cancelled, cancelled.params()));
      bridge.failAll("nothing waits");
      upstream.expectNoMessage(java.time.Duration.ofMillis(20));

      send(bridge, 13, upstream);
      bridge.failAll("the downstream session ended");
      assertTrue(upstream.receiveMessage().error() != null);
    }
  }
}
