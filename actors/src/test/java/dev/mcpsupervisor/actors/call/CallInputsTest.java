package dev.mcpsupervisor.actors.call;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.actors.call.CallOptions.ClientCapability;
import dev.mcpsupervisor.protocol.InputRequests;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One call's waiting server requests, without actors. */
public class CallInputsTest {

  private final CallInputs<String> inputs =
      new CallInputs<>(
          "alpha",
          CallOptions.defaults()
              .withCapabilities(ClientCapability.ELICITATION, ClientCapability.ROOTS));

  @Test
  void aDeclaredRequestWaitsUnderTheKeyTheUpstreamNamedWithoutThatKeyInItsParams() {
    CallInputs.Arrival<String> arrival = inputs.arrived(elicitation("local-1", "user_name"), "s1");

    assertEquals("user_name", assertInstanceOf(CallInputs.Waiting.class, arrival).key());
    CallOutcome.InputRequest shown = inputs.round().get("user_name");
    assertEquals(McpMethods.ELICITATION_CREATE, shown.method());
    assertEquals("What is your name?", shown.params().path("message").asText());
    assertFalse(shown.params().has("_meta"), "the key is the supervisor's business, not shown");
  }

  @Test
  void requestsNamingNoKeyOrATakenOneGetKeysOfTheirOwn() {
    inputs.arrived(elicitation("local-1", "same"), "s1");
    CallInputs.Arrival<String> second = inputs.arrived(elicitation("local-2", "same"), "s1");
    CallInputs.Arrival<String> unnamed =
        inputs.arrived(
            new JsonRpcRequest(TextNode.valueOf("local-3"), McpMethods.ROOTS_LIST, null), "s1");

    assertEquals("elicitation-1", ((CallInputs.Waiting<String>) second).key());
    assertEquals("roots-2", ((CallInputs.Waiting<String>) unnamed).key());
    assertEquals(3, inputs.size());
  }

  @Test
  void aRequestTheCallerDidNotDeclareIsRefusedAtOnceWithTheReason() {
    JsonRpcRequest sampling =
        new JsonRpcRequest(
            TextNode.valueOf("local-7"),
            McpMethods.SAMPLING_CREATE_MESSAGE,
            JsonRpcCodec.emptyObject());

    CallInputs.Replied<String> refused =
        assertInstanceOf(CallInputs.Replied.class, inputs.arrived(sampling, "s1"));

    assertEquals("s1", refused.reply().session());
    assertEquals("local-7", refused.reply().localId());
    assertEquals(
        JsonRpcErrorCodes.NO_CLIENT_FOR_SERVER_REQUEST, refused.reply().response().error().code());
    assertTrue(
        refused.reply().response().error().message().contains("did not declare the sampling"),
        refused.reply().response().error().message());
    assertFalse(inputs.anyWaiting());
  }

  @Test
  void pingIsAnsweredAndNothingWaits() {
    CallInputs.Replied<String> pong =
        assertInstanceOf(
            CallInputs.Replied.class,
            inputs.arrived(new JsonRpcRequest(TextNode.valueOf("p"), McpMethods.PING, null), "s1"));
    assertFalse(pong.reply().response().isError());
    assertFalse(inputs.anyWaiting());
  }

  @Test
  void wellFormedAnswersGoToTheSessionThatAskedTheRestStaysAndUnknownKeysAreIgnored() {
    inputs.arrived(elicitation("local-1", "first"), "s1");
    inputs.arrived(elicitation("local-2", "second"), "s2");

    List<CallInputs.Reply<String>> replies =
        inputs.answer(
            Map.of(
                "first", accept("Ada"),
                "second", JsonRpcCodec.emptyObject().put("not", "an elicit result"),
                "unknown", accept("ignored")));

    assertEquals(1, replies.size());
    assertEquals("s1", replies.get(0).session());
    assertEquals("local-1", replies.get(0).localId());
    assertEquals("Ada", replies.get(0).response().result().path("content").path("name").asText());
    assertEquals(List.of("second"), List.copyOf(inputs.round().keySet()), "asked again");
  }

  @Test
  void withdrawnRequestsNeedNoAnswerAndTheRestAreRefusedWhenTheCallEnds() {
    inputs.arrived(elicitation("local-1", "first"), "s1");
    inputs.arrived(elicitation("local-2", "second"), "s1");

    inputs.withdrawn("local-1");
    List<CallInputs.Reply<String>> refused = inputs.refuseAll("the call is over");

    assertEquals(1, refused.size());
    assertEquals("local-2", refused.get(0).localId());
    assertTrue(refused.get(0).response().error().message().contains("the call is over"));
    assertFalse(inputs.anyWaiting());
  }

  public static JsonRpcRequest elicitation(String localId, String key) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("message", "What is your name?");
    params.putObject("_meta").put(InputRequests.INPUT_KEY_META, key);
    return new JsonRpcRequest(TextNode.valueOf(localId), McpMethods.ELICITATION_CREATE, params);
  }

  @Test
  void anAnswerGivenBeforehandIsTheReplyAndAMalformedOneLetsTheRequestWait() {
    CallInputs<String> given =
        new CallInputs<>(
            "alpha",
            CallOptions.defaults()
                .withCapabilities(ClientCapability.ELICITATION)
                .withInputResponses(
                    Map.of("user_name", accept("Ada"), "other", TextNode.valueOf("junk"))));

    CallInputs.Arrival<String> answered = given.arrived(elicitation("local-1", "user_name"), "s1");
    CallInputs.Reply<String> reply = assertInstanceOf(CallInputs.Replied.class, answered).reply();
    assertEquals("Ada", reply.response().result().path("content").path("name").asText());
    assertEquals("local-1", reply.localId());
    assertInstanceOf(
        CallInputs.Waiting.class, given.arrived(elicitation("local-2", "other"), "s1"));
    assertEquals(1, given.size());
  }

  @Test
  void aCallThatEndsWithoutACapabilityIsToldWhichButRootsAreOnlyRefused() {
    CallInputs<String> strict =
        new CallInputs<>("alpha", CallOptions.defaults().endingWithoutCapability());
    JsonRpcRequest sampling =
        new JsonRpcRequest(
            TextNode.valueOf("local-5"),
            McpMethods.SAMPLING_CREATE_MESSAGE,
            JsonRpcCodec.emptyObject());

    CallInputs.Missing<String> missing =
        assertInstanceOf(CallInputs.Missing.class, strict.arrived(sampling, "s1"));
    assertEquals("sampling", missing.capability());
    assertEquals(
        JsonRpcErrorCodes.NO_CLIENT_FOR_SERVER_REQUEST,
        missing.refusal().response().error().code());
    assertInstanceOf(
        CallInputs.Replied.class,
        strict.arrived(
            new JsonRpcRequest(TextNode.valueOf("local-6"), McpMethods.ROOTS_LIST, null), "s1"));
    assertFalse(strict.anyWaiting());
  }

  public static JsonNode accept(String name) {
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.put("action", "accept");
    result.putObject("content").put("name", name);
    return result;
  }
}
