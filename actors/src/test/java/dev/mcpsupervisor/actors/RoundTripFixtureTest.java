package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.actors.call.CallOptions;
import dev.mcpsupervisor.actors.call.CallOptions.ClientCapability;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The round-trip call API over the real fixture server: its tools ask for elicitation and sampling
 * during a call with the SDK's ordinary server requests, over stdio and (for racing callers, whose
 * requests only a transport that names the call can attribute) Streamable HTTP.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RoundTripFixtureTest {

  private static final String STDIO = "fixture";
  private static final String HTTP = "fixture-http";

  /** The fixture's 2026-07-28 scenario tool that asks step1, then step2. */
  private static final String MULTI_ROUND_TOOL = "test_input_required_result_multi_round";

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int RACING_CALLERS = 200;

  private final FixtureProcess httpFixture = FixtureProcess.startHttp();
  private final SessionSupervisor supervisor =
      SessionSupervisor.start(
          RealFixture.config(
              RealFixture.stdio(STDIO, 40), RealFixture.streamableHttp(HTTP, httpFixture.url())));

  private final CallOptions elicits =
      CallOptions.defaults().withCapabilities(ClientCapability.ELICITATION);

  @AfterAll
  void stopEverything() {
    supervisor.close();
    httpFixture.close();
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void anElicitationDuringACallIsARoundWhoseAnswerTheToolUses() {
    CallOutcome.InputRequired round =
        inputRequired(
            supervisor.call(
                "run-1",
                STDIO,
                McpMethods.TOOLS_CALL,
                RealFixture.toolCall(FixtureTools.ELICIT, "message", "Proceed?"),
                elicits));

    assertEquals(1, round.inputRequests().size());
    CallOutcome.InputRequest asked = round.inputRequests().values().iterator().next();
    assertEquals(McpMethods.ELICITATION_CREATE, asked.method());
    assertEquals("Proceed?", asked.params().path("message").asText());

    String key = round.inputRequests().keySet().iterator().next();
    assertEquals(
        "accept:{\"answer\":\"yes\"}",
        text(complete(round.answer(Map.of(key, accept("answer", "yes"))))));
  }

  @Test
  void twoRoundsOneAfterTheOther() {
    CallOutcome.InputRequired first =
        inputRequired(
            supervisor.call(
                "run-1",
                STDIO,
                McpMethods.TOOLS_CALL,
                RealFixture.toolCall(MULTI_ROUND_TOOL, null, null),
                elicits));
    assertEquals(List.of("step1"), List.copyOf(first.inputRequests().keySet()));

    CallOutcome.InputRequired second =
        inputRequired(first.answer(Map.of("step1", accept("name", "Ada"))));
    assertEquals(2, second.round());
    assertEquals(List.of("step2"), List.copyOf(second.inputRequests().keySet()));

    assertEquals(
        "multi-round complete: Ada, blue",
        text(complete(second.answer(Map.of("step2", accept("colour", "blue"))))));
  }

  @Test
  void aSamplingRequestTheCallerDidNotDeclareIsRefusedUpstreamAndTheToolAnswers() {
    CallOutcome.Complete done =
        complete(
            supervisor.call(
                "run-1",
                STDIO,
                McpMethods.TOOLS_CALL,
                RealFixture.toolCall(FixtureTools.SAMPLE, "prompt", "2+2?"),
                elicits));

    String outcome = JsonRpcCodec.toString(done.response());
    assertTrue(
        outcome.contains("did not declare the sampling capability"),
        "the tool's outcome carries the refusal: " + outcome);
  }

  @Test
  void anAbandonedRoundEndsAtTheDeadlineAndLeavesNothingPending() throws Exception {
    CallOutcome.InputRequired round =
        inputRequired(
            supervisor.call(
                "run-abandon",
                STDIO,
                McpMethods.TOOLS_CALL,
                RealFixture.toolCall(FixtureTools.ELICIT, "message", "Anyone?"),
                elicits.withDeadline(Duration.ofMillis(800))));

    CallOutcome.Complete ended =
        round.finalAnswer().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertEquals(JsonRpcErrorCodes.REQUEST_TIMEOUT, ended.response().error().code());

    CallOutcome.InputRequired cancelled =
        inputRequired(
            supervisor.call(
                "run-abandon",
                STDIO,
                McpMethods.TOOLS_CALL,
                RealFixture.toolCall(FixtureTools.ELICIT, "message", "Still there?"),
                elicits));
    assertEquals(
        JsonRpcErrorCodes.REQUEST_CANCELLED,
        complete(cancelled.cancel()).response().error().code());

    assertNothingPendingOn(STDIO);
    assertEquals(
        "still serving",
        RealFixture.text(
            RealFixture.await(
                RealFixture.call(
                    supervisor,
                    "run-abandon",
                    STDIO,
                    FixtureTools.ECHO,
                    "message",
                    "still serving"),
                WAIT)));
  }

  @Test
  void logsReachACallAtTheLevelItAskedForAndNoneWithoutOne() {
    List<JsonRpcNotification> atWarning = new CopyOnWriteArrayList<>();
    CallOptions warning =
        CallOptions.defaults().withLogLevel("warning").withNotifications(atWarning::add);
    complete(callLog(warning, "info", "below the level"));
    complete(callLog(warning, "error", "at or above the level"));
    List<JsonRpcNotification> none = new CopyOnWriteArrayList<>();
    complete(callLog(CallOptions.defaults().withNotifications(none::add), "error", "unasked"));

    // a log sent before the answer reaches the call before its stage completes
    assertEquals(
        List.of("at or above the level"),
        atWarning.stream().map(log -> log.params().path("data").asText()).toList());
    assertTrue(none.isEmpty(), "no log level, no logs: " + none);
  }

  @Test
  void racingCallersEachAnswerTheirOwnRoundsAndGetTheirOwnResults() {
    List<CompletableFuture<String>> results = new ArrayList<>();
    for (int i = 0; i < RACING_CALLERS; i++) {
      String question = "question " + i;
      String answer = "answer " + i;
      results.add(
          supervisor
              .call(
                  "racer-" + i,
                  HTTP,
                  McpMethods.TOOLS_CALL,
                  RealFixture.toolCall(FixtureTools.ELICIT, "message", question),
                  elicits)
              .thenCompose(
                  outcome -> {
                    CallOutcome.InputRequired round = (CallOutcome.InputRequired) outcome;
                    Map.Entry<String, CallOutcome.InputRequest> asked =
                        round.inputRequests().entrySet().iterator().next();
                    // answering only our own question: a stranger's would show in the result
                    String given =
                        asked.getValue().params().path("message").asText().equals(question)
                            ? answer
                            : "wrong question: " + asked.getValue().params().path("message");
                    return round.answer(Map.of(asked.getKey(), accept("answer", given)));
                  })
              .thenApply(outcome -> text((CallOutcome.Complete) outcome))
              .toCompletableFuture());
    }
    for (int i = 0; i < RACING_CALLERS; i++) {
      assertEquals(
          "accept:{\"answer\":\"answer " + i + "\"}",
          results.get(i).orTimeout(60, TimeUnit.SECONDS).join(),
          "racer-" + i);
    }
    assertNothingPendingOn(HTTP);
  }

  // --------------------------------------------------------------------------------------- helpers

  private CompletionStage<CallOutcome> callLog(CallOptions options, String level, String message) {
    ObjectNode params = RealFixture.toolCall(FixtureTools.LOG, "level", level);
    ((ObjectNode) params.get("arguments")).put("message", message);
    return supervisor.call("run-logs", STDIO, McpMethods.TOOLS_CALL, params, options);
  }

  /** Bounded: the refusals of a finished call reach its session just after its answer. */
  private void assertNothingPendingOn(String server) {
    TestProbe.create(supervisor.actorSystem())
        .awaitAssert(
            Duration.ofSeconds(10),
            () -> {
              SupervisorSnapshot.SessionSnapshot session =
                  TestSupervisor.await(supervisor.snapshot()).keys().stream()
                      .filter(key -> key.server().equals(server))
                      .findFirst()
                      .orElseThrow()
                      .sessions()
                      .get(0);
              assertEquals(0, session.inFlight(), "in flight on " + server);
              assertEquals(0, session.stashed(), "stashed on " + server);
              assertEquals(
                  0, session.awaitingAnswers(), "server requests awaiting answers on " + server);
              return null;
            });
  }

  private static CallOutcome.InputRequired inputRequired(CompletionStage<CallOutcome> outcome) {
    return assertInstanceOf(CallOutcome.InputRequired.class, await(outcome));
  }

  private static CallOutcome.Complete complete(CompletionStage<CallOutcome> outcome) {
    return assertInstanceOf(CallOutcome.Complete.class, await(outcome));
  }

  private static CallOutcome await(CompletionStage<CallOutcome> outcome) {
    try {
      return outcome.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("no outcome within " + WAIT + ": " + e, e);
    }
  }

  private static String text(CallOutcome.Complete done) {
    return RealFixture.text(done.response());
  }

  private static JsonNode accept(String field, String value) {
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.put("action", "accept");
    result.putObject("content").put(field, value);
    return result;
  }
}
