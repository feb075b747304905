package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The bookkeeping of input_required rounds, with a probe standing in for each upstream asker. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InputRoundsTest {

  private static final JsonNode ALL = json("{\"sampling\":{},\"elicitation\":{},\"roots\":{}}");
  private static final JsonRpcRequest CALL = call("{}");

  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  private static JsonRpcRequest call(String inputResponses) {
    return new JsonRpcRequest(
        IntNode.valueOf(1),
        "tools/call",
        json("{\"name\":\"t\",\"inputResponses\":" + inputResponses + "}"),
        null);
  }

  private DownstreamSession.UpstreamRequest asked(
      TestProbe<JsonRpcResponse> upstream, int id, String method, String params) {
    return new DownstreamSession.UpstreamRequest(
        "server",
        new JsonRpcRequest(IntNode.valueOf(id), method, json(params), null),
        null,
        upstream.getRef());
  }

  @Test
  void requestsGoOutUnderTheirKeysAndWellFormedAnswersGoUpstreamUnderTheUpstreamsIds() {
    InputRounds rounds = new InputRounds();
    TestProbe<JsonRpcResponse> upstream = testKit.createTestProbe();
    assertEquals(
        InputRounds.Arrival.WAITING,
        rounds.arrived(
            asked(
                upstream,
                7,
                "elicitation/create",
                "{\"message\":\"m\",\"_meta\":{\"dev.mcpsupervisor/inputKey\":\"user_name\"}}"),
            ALL,
            CALL));
    assertEquals(
        InputRounds.Arrival.WAITING,
        rounds.arrived(asked(upstream, 8, "sampling/createMessage", "{}"), ALL, CALL));

    JsonNode round = rounds.nextRound(number -> "state-" + number);
    assertEquals("input_required", round.path("resultType").asText());
    assertEquals("state-1", round.path("requestState").asText());
    assertEquals(
        json("{\"method\":\"elicitation/create\",\"params\":{\"message\":\"m\"}}"),
        round.path("inputRequests").path("user_name"),
        "the key hint is the gateway's, not the client's business");
    assertTrue(round.path("inputRequests").has("sampling-1"), round.toString());
    assertTrue(rounds.isOut());

    rounds.retried(
        call(
            "{\"user_name\":{\"action\":\"accept\",\"content\":{\"name\":\"A\"}},"
                + "\"sampling-1\":\"not an answer\",\"extra\":{}}"));
    JsonRpcResponse answered = upstream.receiveMessage();
    assertEquals(IntNode.valueOf(7), answered.id());
    assertEquals("accept", answered.result().path("action").asText());
    assertTrue(rounds.anyWaiting(), "the malformed sampling answer is asked again");
    assertFalse(rounds.isOut());
    List<String> askedAgain = new java.util.ArrayList<>();
    rounds.nextRound(n -> "s").path("inputRequests").fieldNames().forEachRemaining(askedAgain::add);
    assertEquals(List.of("sampling-1"), askedAgain);
  }

  @Test
  void aMissingSamplingCapabilityFailsTheCallButUnpromptedRootsOnlyGetARefusal() {
    InputRounds rounds = new InputRounds();
    TestProbe<JsonRpcResponse> upstream = testKit.createTestProbe();
    JsonNode none = json("{}");

    assertEquals(
        InputRounds.Arrival.MISSING_CAPABILITY,
        rounds.arrived(asked(upstream, 1, "sampling/createMessage", "{}"), none, CALL));
    assertTrue(upstream.receiveMessage().isError());
    assertEquals(
        InputRounds.Arrival.HANDLED,
        rounds.arrived(asked(upstream, 2, "roots/list", "{}"), none, CALL));
    assertTrue(upstream.receiveMessage().isError());
    assertFalse(rounds.anyWaiting());
  }

  @Test
  void answersTheRequestAlreadyHoldsNeedNoRoundAndFailAllLeavesNothingWaiting() {
    InputRounds rounds = new InputRounds();
    TestProbe<JsonRpcResponse> upstream = testKit.createTestProbe();
    JsonRpcRequest withAnswer = call("{\"roots-1\":{\"roots\":[]}}");

    assertEquals(
        InputRounds.Arrival.HANDLED,
        rounds.arrived(asked(upstream, 3, "roots/list", "{}"), ALL, withAnswer));
    assertEquals(IntNode.valueOf(3), upstream.receiveMessage().id());

    rounds.arrived(asked(upstream, 4, "elicitation/create", "{}"), ALL, CALL);
    rounds.failAll("the session ended");
    assertTrue(upstream.receiveMessage().isError());
    assertFalse(rounds.anyWaiting());
  }
}
