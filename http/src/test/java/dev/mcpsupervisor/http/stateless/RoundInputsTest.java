package dev.mcpsupervisor.http.stateless;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RoundInputsTest {

  private static CallOutcome.InputRequest elicit(String message) {
    return new CallOutcome.InputRequest(
        "elicitation/create", JsonRpcCodec.emptyObject().put("message", message));
  }

  private static JsonRpcRequest retry(Map<String, String> responses) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    ObjectNode given = params.putObject("inputResponses");
    responses.forEach((key, value) -> given.putObject(key).put("answer", value));
    return new JsonRpcRequest(IntNode.valueOf(2), "tools/call", params);
  }

  @Test
  void twoCallsWithTheSameKeyAreToldApartAndEachGetsItsAnswerUnderItsOwnKey() {
    RoundInputs<String> round = new RoundInputs<>();
    round.ask("first", Map.of("name", elicit("first's")));
    round.ask("second", Map.of("name", elicit("second's")));
    round.ask("third", Map.of("age", elicit("third's")));

    ObjectNode asked = round.inputRequests();
    assertEquals(List.of("name", "name-2", "age"), List.copyOf(iterable(asked)));
    assertEquals("second's", asked.path("name-2").path("params").path("message").asText());

    Map<String, Map<String, com.fasterxml.jackson.databind.JsonNode>> answers =
        round.answeredBy(retry(Map.of("name", "a", "name-2", "b")));
    assertEquals(TextNode.valueOf("a"), answers.get("first").get("name").get("answer"));
    assertEquals(TextNode.valueOf("b"), answers.get("second").get("name").get("answer"));
    assertEquals(Map.of(), answers.get("third"), "given nothing: it asks again");
    assertEquals(0, round.inputRequests().size(), "the round is over");
  }

  @Test
  void aRequestWithoutInputResponsesGivesNone() {
    assertEquals(
        Map.of(),
        RoundInputs.responsesOf(
            new JsonRpcRequest(IntNode.valueOf(1), "tools/call", JsonRpcCodec.emptyObject())));
    assertEquals(
        Map.of(), RoundInputs.responsesOf(new JsonRpcRequest(IntNode.valueOf(1), "ping", null)));
  }

  private static List<String> iterable(ObjectNode node) {
    List<String> names = new java.util.ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
