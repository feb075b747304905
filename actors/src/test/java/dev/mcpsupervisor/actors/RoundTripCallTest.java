package dev.mcpsupervisor.actors;

import static dev.mcpsupervisor.actors.TestSupervisor.await;
import static dev.mcpsupervisor.actors.call.CallInputsTest.accept;
import static dev.mcpsupervisor.actors.call.CallInputsTest.elicitation;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.actors.FakeConnector.FakeConnection;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.actors.call.CallOptions;
import dev.mcpsupervisor.actors.call.CallOptions.ClientCapability;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.actors.delivery.ContextListener;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The round-trip call API against a scripted upstream: what goes over the wire when the caller
 * answers, refuses, abandons or cancels a round, and that the call's delivery beats its context's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RoundTripCallTest {

  private static final CallOptions ELICITS =
      CallOptions.defaults().withCapabilities(ClientCapability.ELICITATION);

  /** One supervisor for the class, one server name per test (so each test has its own session). */
  private final TestSupervisor test =
      TestSupervisor.startOnRealTime(
          TestSupervisor.shared("answer"),
          TestSupervisor.shared("refuse"),
          TestSupervisor.shared("abandon"),
          TestSupervisor.shared("cancel"),
          TestSupervisor.shared("stage"),
          TestSupervisor.shared("route"),
          TestSupervisor.shared("logs"),
          TestSupervisor.shared("missing"),
          TestSupervisor.shared("preset"),
          TestSupervisor.shared("leaseless"));

  @AfterAll
  void close() {
    test.close();
  }

  @Test
  void requestsSentTogetherGoOutInOneRoundAndTheAnswersGoUpstreamUnderTheUpstreamsIds() {
    CompletionStage<CallOutcome> first =
        test.supervisor.call(
            "run-1",
            "answer",
            McpMethods.TOOLS_CALL,
            toolCall(),
            ELICITS.withCapabilities(ClientCapability.ROOTS));
    FakeConnection upstream = test.connector.nextConnection();
    JsonRpcRequest call = upstream.nextRequest();
    upstream.push(upstreamElicitation("up-1", "user_name"), call.id());
    upstream.push(
        new JsonRpcRequest(TextNode.valueOf("up-2"), McpMethods.ROOTS_LIST, null), call.id());

    CallOutcome.InputRequired round =
        assertInstanceOf(CallOutcome.InputRequired.class, await(first));
    assertEquals(1, round.round());
    assertEquals(
        List.of("roots-1", "user_name"), round.inputRequests().keySet().stream().sorted().toList());
    assertEquals(McpMethods.ROOTS_LIST, round.inputRequests().get("roots-1").method());

    ObjectNode roots = JsonRpcCodec.emptyObject();
    roots.putArray("roots").addObject().put("uri", "file:///work");
    CompletionStage<CallOutcome> next =
        round.answer(Map.of("user_name", accept("Ada"), "roots-1", roots));
    assertSame(next, round.answer(Map.of()), "a round is answered once");

    Map<String, JsonRpcResponse> byUpstreamId = new HashMap<>();
    for (int i = 0; i < 2; i++) {
      JsonRpcResponse answer = (JsonRpcResponse) upstream.nextSent();
      byUpstreamId.put(answer.id().asText(), answer);
    }
    assertEquals("Ada", byUpstreamId.get("up-1").result().path("content").path("name").asText());
    assertEquals(
        "file:///work",
        byUpstreamId.get("up-2").result().path("roots").path(0).path("uri").asText());

    upstream.respond(call.id(), FakeConnector.text("hello Ada"));
    assertEquals("hello Ada", textOf(await(next)));
  }

  @Test
  void aRequestTheCallerDidNotDeclareIsRefusedUpstreamAndTheCallGoesOn() {
    CompletionStage<CallOutcome> outcome =
        test.supervisor.call("run-1", "refuse", McpMethods.TOOLS_CALL, toolCall(), ELICITS);
    FakeConnection upstream = test.connector.nextConnection();
    JsonRpcRequest call = upstream.nextRequest();
    upstream.push(
        new JsonRpcRequest(
            TextNode.valueOf("up-9"),
            McpMethods.SAMPLING_CREATE_MESSAGE,
            JsonRpcCodec.emptyObject()),
        call.id());

    JsonRpcResponse refusal = (JsonRpcResponse) upstream.nextSent();
    assertEquals(TextNode.valueOf("up-9"), refusal.id());
    assertEquals(JsonRpcErrorCodes.NO_CLIENT_FOR_SERVER_REQUEST, refusal.error().code());
    assertTrue(
        refusal.error().message().contains("did not declare the sampling capability"),
        refusal.error().message());
    assertFalse(outcome.toCompletableFuture().isDone(), "no round for a refused request");

    upstream.respond(call.id(), FakeConnector.text("sampling refused"));
    assertEquals("sampling refused", textOf(await(outcome)));
  }

  @Test
  void aRoundLeftUnansweredPastTheDeadlineCancelsTheCallUpstreamAndRefusesWhatWaits() {
    Elicited elicited = elicited("abandon", ELICITS.withDeadline(Duration.ofMillis(500)));
    FakeConnection upstream = elicited.upstream();
    JsonRpcRequest call = elicited.call();
    CallOutcome.InputRequired round = elicited.round();

    JsonRpcNotification cancelled = upstream.nextNotification();
    assertEquals(McpMethods.NOTIFICATION_CANCELLED, cancelled.method());
    assertEquals(call.id().asLong(), cancelled.params().path("requestId").asLong());
    JsonRpcResponse refusal = (JsonRpcResponse) upstream.nextSent();
    assertEquals(TextNode.valueOf("up-1"), refusal.id());
    assertEquals(JsonRpcErrorCodes.NO_CLIENT_FOR_SERVER_REQUEST, refusal.error().code());

    assertEquals(
        JsonRpcErrorCodes.REQUEST_TIMEOUT, await(round.finalAnswer()).response().error().code());
    CallOutcome late = await(round.answer(Map.of("user_name", accept("too late"))));
    assertEquals(
        JsonRpcErrorCodes.REQUEST_TIMEOUT,
        assertInstanceOf(CallOutcome.Complete.class, late).response().error().code(),
        "an answer after the end gets the call's answer");
    assertNothingPending("abandon");
  }

  @Test
  void cancellingARoundCancelsTheCallUpstream() {
    Elicited elicited = elicited("cancel", ELICITS);
    FakeConnection upstream = elicited.upstream();
    JsonRpcRequest call = elicited.call();
    CallOutcome.InputRequired round = elicited.round();

    CallOutcome ended = await(round.cancel());

    assertEquals(
        JsonRpcErrorCodes.REQUEST_CANCELLED,
        assertInstanceOf(CallOutcome.Complete.class, ended).response().error().code());
    JsonRpcNotification cancelled = upstream.nextNotification();
    assertEquals(call.id().asLong(), cancelled.params().path("requestId").asLong());
    assertEquals(TextNode.valueOf("up-1"), ((JsonRpcResponse) upstream.nextSent()).id());
    assertNothingPending("cancel");
  }

  @Test
  void cancellingTheStageOfACallCancelsItUpstream() {
    CompletionStage<CallOutcome> first =
        test.supervisor.call("run-1", "stage", McpMethods.TOOLS_CALL, toolCall(), ELICITS);
    FakeConnection upstream = test.connector.nextConnection();
    JsonRpcRequest call = upstream.nextRequest();

    first.toCompletableFuture().cancel(true);

    JsonRpcNotification cancelled = upstream.nextNotification();
    assertEquals(McpMethods.NOTIFICATION_CANCELLED, cancelled.method());
    assertEquals(call.id().asLong(), cancelled.params().path("requestId").asLong());
  }

  @Test
  void theCallsOwnDeliveryBeatsItsContextsListener() {
    CompletableFuture<JsonRpcRequest> listenerAsked = new CompletableFuture<>();
    test.supervisor.register("routed", listenerThatRecords(listenerAsked));
    CompletionStage<CallOutcome> first =
        test.supervisor.call("routed", "route", McpMethods.TOOLS_CALL, toolCall(), ELICITS);
    FakeConnection upstream = test.connector.nextConnection();
    JsonRpcRequest call = upstream.nextRequest();
    // stdio names no call: the only call in flight owns the request
    upstream.push(upstreamElicitation("up-1", "user_name"));

    CallOutcome.InputRequired round =
        assertInstanceOf(CallOutcome.InputRequired.class, await(first));
    CompletionStage<CallOutcome> next = round.answer(Map.of("user_name", accept("Ada")));
    assertEquals(TextNode.valueOf("up-1"), ((JsonRpcResponse) upstream.nextSent()).id());
    upstream.respond(call.id(), FakeConnector.text("done"));
    assertInstanceOf(CallOutcome.Complete.class, await(next));
    assertFalse(listenerAsked.isDone(), "the context's listener was not asked");
  }

  @Test
  void logsReachOnlyCallsThatAskedForThemAtTheirLevelAndTheLevelGoesUpstream() {
    List<JsonRpcNotification> quiet = new CopyOnWriteArrayList<>();
    List<JsonRpcNotification> warnings = new CopyOnWriteArrayList<>();
    CompletionStage<CallOutcome> quietCall =
        test.supervisor.call(
            "run-1",
            "logs",
            McpMethods.TOOLS_CALL,
            toolCall(),
            CallOptions.defaults().withNotifications(quiet::add));
    FakeConnection upstream = test.connector.nextConnection();
    JsonRpcRequest quietRequest = upstream.nextRequest();
    CompletionStage<CallOutcome> warningCall =
        test.supervisor.call(
            "run-2",
            "logs",
            McpMethods.TOOLS_CALL,
            toolCall(),
            CallOptions.defaults().withLogLevel("warning").withNotifications(warnings::add));
    JsonRpcRequest warningRequest = upstream.nextRequest();
    assertEquals(
        "warning",
        warningRequest.params().path("_meta").path(StatelessEnvelope.META_LOG_LEVEL).asText());
    assertFalse(quietRequest.params().path("_meta").has(StatelessEnvelope.META_LOG_LEVEL));

    upstream.push(log("info", "related info"), warningRequest.id());
    upstream.push(log("error", "related error"), warningRequest.id());
    upstream.push(log("error", "related to the quiet call"), quietRequest.id());
    upstream.push(log("critical", "names no call"));
    upstream.respond(warningRequest.id(), FakeConnector.text("w"));
    upstream.respond(quietRequest.id(), FakeConnector.text("q"));
    await(warningCall);
    await(quietCall);

    assertEquals(
        List.of("related error", "names no call"),
        warnings.stream().map(n -> n.params().path("data").asText()).toList());
    assertTrue(quiet.isEmpty(), "a call that asked for no level gets no logs: " + quiet);
  }

  @Test
  void aCallThatMustEndWithoutACapabilityEndsWith32021AndIsCancelledUpstream() {
    CompletionStage<CallOutcome> outcome =
        test.supervisor.call(
            "run-1",
            "missing",
            McpMethods.TOOLS_CALL,
            toolCall(),
            ELICITS.endingWithoutCapability());
    FakeConnection upstream = test.connector.nextConnection();
    JsonRpcRequest call = upstream.nextRequest();
    upstream.push(
        new JsonRpcRequest(
            TextNode.valueOf("up-3"),
            McpMethods.SAMPLING_CREATE_MESSAGE,
            JsonRpcCodec.emptyObject()),
        call.id());

    JsonRpcResponse refusal = (JsonRpcResponse) upstream.nextSent();
    assertEquals(TextNode.valueOf("up-3"), refusal.id());
    assertEquals(JsonRpcErrorCodes.NO_CLIENT_FOR_SERVER_REQUEST, refusal.error().code());
    JsonRpcNotification cancelled = upstream.nextNotification();
    assertEquals(McpMethods.NOTIFICATION_CANCELLED, cancelled.method());
    assertEquals(call.id(), cancelled.params().path("requestId"));
    JsonRpcResponse answer =
        assertInstanceOf(CallOutcome.Complete.class, await(outcome)).response();
    assertEquals(JsonRpcErrorCodes.MISSING_CLIENT_CAPABILITY, answer.error().code());
    assertTrue(answer.error().data().path("requiredCapabilities").has("sampling"));
    assertNothingPending("missing");
  }

  @Test
  void anAnswerTheCallerGaveBeforeItWasAskedGoesUpstreamWithoutARound() {
    CompletionStage<CallOutcome> outcome =
        test.supervisor.call(
            "run-1",
            "preset",
            McpMethods.TOOLS_CALL,
            toolCall(),
            ELICITS.withInputResponses(Map.of("user_name", accept("Grace"))));
    FakeConnection upstream = test.connector.nextConnection();
    JsonRpcRequest call = upstream.nextRequest();
    upstream.push(upstreamElicitation("up-4", "user_name"), call.id());

    JsonRpcResponse given = (JsonRpcResponse) upstream.nextSent();
    assertEquals(TextNode.valueOf("up-4"), given.id());
    assertEquals("Grace", given.result().path("content").path("name").asText());
    upstream.respond(call.id(), FakeConnector.text("hello Grace"));
    assertEquals("hello Grace", textOf(await(outcome)));
  }

  @Test
  void aLeaselessCallLeavesNoLeaseAndItsCancelStillReachesItsSession() {
    CompletionStage<CallOutcome> outcome =
        test.supervisor.call(
            "request-1", "leaseless", McpMethods.TOOLS_CALL, toolCall(), ELICITS.withoutLease());
    FakeConnection upstream = test.connector.nextConnection();
    JsonRpcRequest call = upstream.nextRequest();
    SupervisorSnapshot.KeySnapshot key =
        test.snapshot().keys().stream()
            .filter(k -> k.server().equals("leaseless"))
            .findFirst()
            .orElseThrow();
    assertEquals(Map.of(), key.leases(), "the call holds no lease");
    assertEquals(1, key.sessions().get(0).inFlight());

    outcome.toCompletableFuture().cancel(false);
    JsonRpcNotification cancelled = upstream.nextNotification();
    assertEquals(McpMethods.NOTIFICATION_CANCELLED, cancelled.method());
    assertEquals(call.id(), cancelled.params().path("requestId"));
    assertNothingPending("leaseless");
  }

  // --------------------------------------------------------------------------------------- helpers

  private void assertNothingPending(String server) {
    test.awaitAssert(
        () -> {
          SupervisorSnapshot.SessionSnapshot session =
              await(test.supervisor.snapshot()).keys().stream()
                  .filter(key -> key.server().equals(server))
                  .findFirst()
                  .orElseThrow()
                  .sessions()
                  .get(0);
          assertEquals(0, session.inFlight(), "in flight");
          assertEquals(0, session.stashed(), "stashed");
          assertEquals(0, session.awaitingAnswers(), "server requests awaiting an answer");
        });
  }

  /** A call of {@code server} whose upstream asked for one elicitation, and the round it made. */
  private record Elicited(
      FakeConnection upstream, JsonRpcRequest call, CallOutcome.InputRequired round) {}

  private Elicited elicited(String server, CallOptions options) {
    CompletionStage<CallOutcome> first =
        test.supervisor.call("run-1", server, McpMethods.TOOLS_CALL, toolCall(), options);
    FakeConnection upstream = test.connector.nextConnection();
    JsonRpcRequest call = upstream.nextRequest();
    upstream.push(upstreamElicitation("up-1", "user_name"), call.id());
    return new Elicited(
        upstream, call, assertInstanceOf(CallOutcome.InputRequired.class, await(first)));
  }

  private static String textOf(CallOutcome outcome) {
    return assertInstanceOf(CallOutcome.Complete.class, outcome)
        .response()
        .result()
        .path("content")
        .path(0)
        .path("text")
        .asText();
  }

  private static JsonNode toolCall() {
    return RealFixture.toolCall("anything", null, null);
  }

  private static JsonRpcRequest upstreamElicitation(String upstreamId, String key) {
    return elicitation(upstreamId, key);
  }

  private static JsonRpcNotification log(String level, String data) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("level", level);
    params.put("data", data);
    return new JsonRpcNotification(McpMethods.NOTIFICATION_MESSAGE, params);
  }

  private static ContextListener listenerThatRecords(CompletableFuture<JsonRpcRequest> asked) {
    return new ContextListener() {
      @Override
      public void onNotification(String server, JsonRpcNotification notification) {}

      @Override
      public CompletionStage<JsonRpcResponse> onServerRequest(
          String server, JsonRpcRequest request) {
        asked.complete(request);
        return new CompletableFuture<>();
      }
    };
  }
}
