package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.actors.call.CallOptions;
import dev.mcpsupervisor.actors.call.CallOptions.ClientCapability;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.actors.delivery.ContextListener;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Server requests under concurrency (issue 21, item 1): 20 callers of each era call the fixture's
 * {@code sample} tool at once, each with a prompt of its own, on one {@code shared} server of four
 * sessions at most. Over stdio the fixture's sampling request names no call: only the key actor's
 * scheduling (one interactive call per session) makes its owner certain, once the tool is known to
 * be interactive. Over Streamable HTTP the request arrives on the call's own response stream. Every
 * caller must get its own prompt, and only its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InteractiveCallsFixtureTest {

  private static final int CALLERS = 20;
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String STDIO = "fixture";
  private static final String HTTP = "fixture-http";
  private static final String DECLARED = "fixture-declared";
  private static final String ONE = "fixture-one";
  private static final String TWO = "fixture-two";
  private static final String TIED = "fixture-tied";

  private final FixtureProcess httpFixture = FixtureProcess.startHttp();
  private final SessionSupervisor supervisor =
      SessionSupervisor.start(
          RealFixture.config(
              shared(RealFixture.stdio(STDIO, 21)),
              shared(RealFixture.streamableHttp(HTTP, httpFixture.url())),
              declaring(shared(RealFixture.stdio(DECLARED, 22)), 4),
              declaring(shared(RealFixture.stdio(ONE, 23)), 1),
              declaring(shared(RealFixture.stdio(TWO, 24)), 2),
              shared(RealFixture.stdio(TIED, 25))));

  @AfterAll
  void stopEverything() {
    supervisor.close();
    httpFixture.close();
    ChildProcesses.assertNoneAlive();
  }

  /** Four sessions at most, as a server with the shipped defaults has. */
  static ServerConfig shared(ServerConfig server) {
    return server.toBuilder()
        .isolation(Isolation.SHARED)
        .maxSessions(4)
        .maxInflightPerSession(32)
        .requestTimeout(WAIT)
        .idleTimeout(Duration.ofMinutes(5))
        .build();
  }

  /** The server with {@code interactiveTools: [sample]} and at most {@code maxSessions}. */
  static ServerConfig declaring(ServerConfig server, int maxSessions) {
    return server.toBuilder()
        .isolation(Isolation.SHARED)
        .maxSessions(maxSessions)
        .maxInflightPerSession(32)
        .requestTimeout(WAIT)
        .idleTimeout(Duration.ofMinutes(5))
        .interactiveTools(Set.of(FixtureTools.SAMPLE))
        .build();
  }

  @Test
  void aToolDeclaredInteractiveIsScheduledSoFromItsFirstCall() {
    assertEquals(Tally.allOwn(CALLERS), race(i -> statelessCaller(DECLARED, i)));
  }

  @Test
  void pastMaxSessionsAnInteractiveCallWaitsInOrderWithinItsDeadlineAndNeverFailsBeforeIt()
      throws Exception {
    HoldingListener holder = new HoldingListener();
    supervisor.register("holder", holder);
    CompletionStage<JsonRpcResponse> held =
        supervisor.request(
            "holder",
            ONE,
            McpMethods.TOOLS_CALL,
            RealFixture.toolCall(FixtureTools.SAMPLE, "prompt", "held"),
            null);
    Held asked = holder.asked.poll(30, TimeUnit.SECONDS);
    assertEquals("held", promptOf(asked.request().params()), "the holder runs on the one session");

    // another caller's interactive call waits for the session: until its deadline, then times out
    long started = System.nanoTime();
    CallOutcome timedOut =
        supervisor
            .call(
                "waiter-1",
                ONE,
                McpMethods.TOOLS_CALL,
                RealFixture.toolCall(FixtureTools.SAMPLE, "prompt", "too late"),
                CallOptions.defaults()
                    .withCapabilities(ClientCapability.SAMPLING)
                    .withoutLease()
                    .withDeadline(Duration.ofMillis(500)))
            .toCompletableFuture()
            .get(30, TimeUnit.SECONDS);
    JsonRpcResponse timeout = ((CallOutcome.Complete) timedOut).response();
    assertTrue(timeout.isError(), "a timeout, not a round: " + timeout);
    assertTrue(timeout.error().message().contains("timed out after 500 ms"), timeout.toString());
    assertTrue(System.nanoTime() - started >= Duration.ofMillis(500).toNanos(), "not before");

    // a waiter given up by its caller leaves the queue: the one behind it is next
    CompletableFuture<CallOutcome> cancelled =
        supervisor
            .call(
                "waiter-2",
                ONE,
                McpMethods.TOOLS_CALL,
                RealFixture.toolCall(FixtureTools.SAMPLE, "prompt", "given up"),
                CallOptions.defaults().withCapabilities(ClientCapability.SAMPLING).withoutLease())
            .toCompletableFuture();
    CompletionStage<Seen> next = statelessCaller(ONE, 3);
    cancelled.cancel(false);

    asked.answer().complete(JsonRpcResponse.success(asked.request().id(), sampled("for held")));
    assertEquals(
        "for held", RealFixture.text(held.toCompletableFuture().get(30, TimeUnit.SECONDS)));
    assertEquals(Seen.OWN, await(next), "the next waiter got the session, and its own round");
  }

  /**
   * Two session-era contexts lease the one pooled session; the second one's interactive call runs
   * on a second session, outside its lease: its request reaches it there, and its cancel reaches
   * the session it runs on (nothing stays in flight for it).
   */
  @Test
  void aLeasedContextsInteractiveCallOutsideItsLeaseGetsItsRequestAndItsCancelThere()
      throws Exception {
    HoldingListener first = new HoldingListener();
    HoldingListener second = new HoldingListener();
    supervisor.register("first", first);
    supervisor.register("second", second);
    CompletionStage<JsonRpcResponse> firstCall =
        supervisor.request(
            "first",
            TWO,
            McpMethods.TOOLS_CALL,
            RealFixture.toolCall(FixtureTools.SAMPLE, "prompt", "first's"),
            null);
    Held firstAsked = first.asked.poll(30, TimeUnit.SECONDS);
    assertEquals("first's", promptOf(firstAsked.request().params()));
    CompletableFuture<JsonRpcResponse> secondCall =
        supervisor
            .request(
                "second",
                TWO,
                McpMethods.TOOLS_CALL,
                RealFixture.toolCall(FixtureTools.SAMPLE, "prompt", "second's"),
                null)
            .toCompletableFuture();
    Held secondAsked = second.asked.poll(30, TimeUnit.SECONDS);
    assertEquals("second's", promptOf(secondAsked.request().params()), "its own, not first's");

    var key = keyOf(TWO);
    assertEquals(1, key.leases().values().stream().distinct().count(), "one leased session");
    assertEquals(2, key.sessions().size(), "the second call runs on a second session");

    secondCall.cancel(false);
    TestProbe.create(supervisor.actorSystem())
        .awaitAssert(
            Duration.ofSeconds(10),
            () -> {
              assertEquals(
                  1,
                  keyOf(TWO).sessions().stream().mapToInt(s -> s.inFlight()).sum(),
                  "only first's call is in flight: second's was withdrawn where it ran");
              return null;
            });
    firstAsked
        .answer()
        .complete(JsonRpcResponse.success(firstAsked.request().id(), sampled("for first")));
    assertEquals(
        "for first", RealFixture.text(firstCall.toCompletableFuture().get(30, TimeUnit.SECONDS)));
    supervisor.releaseAll("first");
    supervisor.releaseAll("second");
  }

  /**
   * A request that names its call (here by the call's progress token) needs no scheduling: its tool
   * is not learnt interactive, and its calls stay pooled on one session.
   */
  @Test
  void aRequestThatNamesItsCallMarksNothingAndItsCallsStayPooled() throws Exception {
    HoldingListener one = new HoldingListener();
    HoldingListener other = new HoldingListener();
    supervisor.register("tied-one", one);
    supervisor.register("tied-other", other);
    answerOwn(one, tiedSample("tied-one", "learns nothing"));

    CompletionStage<JsonRpcResponse> first = tiedSample("tied-one", "one's");
    CompletionStage<JsonRpcResponse> second = tiedSample("tied-other", "other's");
    Held oneAsked = one.asked.poll(30, TimeUnit.SECONDS);
    Held otherAsked = other.asked.poll(30, TimeUnit.SECONDS);
    assertEquals("one's", promptOf(oneAsked.request().params()));
    assertEquals("other's", promptOf(otherAsked.request().params()));
    assertEquals(1, keyOf(TIED).sessions().size(), "both in flight on one pooled session");
    oneAsked.answer().complete(JsonRpcResponse.success(oneAsked.request().id(), sampled("1")));
    otherAsked.answer().complete(JsonRpcResponse.success(otherAsked.request().id(), sampled("2")));
    assertEquals("1", RealFixture.text(first.toCompletableFuture().get(30, TimeUnit.SECONDS)));
    assertEquals("2", RealFixture.text(second.toCompletableFuture().get(30, TimeUnit.SECONDS)));
    supervisor.releaseAll("tied-one");
    supervisor.releaseAll("tied-other");
  }

  private CompletionStage<JsonRpcResponse> tiedSample(String context, String prompt) {
    ObjectNode params = RealFixture.toolCall(FixtureTools.SAMPLE, "prompt", prompt);
    ((ObjectNode) params.get("arguments")).put("tied", true);
    params.putObject("_meta").put("progressToken", context + "-" + prompt);
    return supervisor.request(context, TIED, McpMethods.TOOLS_CALL, params, null);
  }

  private static void answerOwn(HoldingListener listener, CompletionStage<JsonRpcResponse> call)
      throws Exception {
    Held asked = listener.asked.poll(30, TimeUnit.SECONDS);
    asked.answer().complete(JsonRpcResponse.success(asked.request().id(), sampled("done")));
    assertEquals("done", RealFixture.text(call.toCompletableFuture().get(30, TimeUnit.SECONDS)));
  }

  private SupervisorSnapshot.KeySnapshot keyOf(String server) {
    return TestSupervisor.await(supervisor.snapshot()).keys().stream()
        .filter(key -> key.server().equals(server))
        .findFirst()
        .orElseThrow();
  }

  record Held(JsonRpcRequest request, CompletableFuture<JsonRpcResponse> answer) {}

  /** Keeps the server requests it is asked, to answer later. */
  static final class HoldingListener implements ContextListener {
    final LinkedBlockingQueue<Held> asked = new LinkedBlockingQueue<>();

    @Override
    public void onNotification(String server, JsonRpcNotification notification) {}

    @Override
    public CompletionStage<JsonRpcResponse> onServerRequest(String server, JsonRpcRequest request) {
      CompletableFuture<JsonRpcResponse> answer = new CompletableFuture<>();
      asked.add(new Held(request, answer));
      return answer;
    }
  }

  @Test
  void twentyStatelessCallersOverStdioEachGetTheirOwnRoundAfterTheToolsFirstInteractiveCall() {
    firstInteractiveCall(STDIO);
    assertEquals(Tally.allOwn(CALLERS), race(i -> statelessCaller(STDIO, i)));
  }

  @Test
  void twentySessionEraContextsOverStdioEachGetTheirOwnRequestAfterTheToolsFirstInteractiveCall() {
    firstInteractiveCall(STDIO);
    assertEquals(Tally.allOwn(CALLERS), race(i -> sessionEraCaller(STDIO, "stdio", i)));
  }

  @Test
  void twentyStatelessCallersOverStreamableHttpEachGetTheirOwnRoundFromTheFirstCall() {
    assertEquals(Tally.allOwn(CALLERS), race(i -> statelessCaller(HTTP, i)));
  }

  @Test
  void twentySessionEraContextsOverStreamableHttpEachGetTheirOwnRequestFromTheFirstCall() {
    assertEquals(Tally.allOwn(CALLERS), race(i -> sessionEraCaller(HTTP, "http", i)));
  }

  // ------------------------------------------------------------------------------------- callers

  /** What one caller saw: its own prompt (and its own answer back), a wrong prompt, or no round. */
  enum Seen {
    OWN,
    WRONG_PROMPT,
    NO_ROUND
  }

  /** How many callers saw what. */
  record Tally(int own, int wrongPrompts, int noRound) {
    static Tally allOwn(int callers) {
      return new Tally(callers, 0, 0);
    }

    static Tally of(List<Seen> seen) {
      return new Tally(
          (int) seen.stream().filter(Seen.OWN::equals).count(),
          (int) seen.stream().filter(Seen.WRONG_PROMPT::equals).count(),
          (int) seen.stream().filter(Seen.NO_ROUND::equals).count());
    }
  }

  /** The tool is learnt to be interactive: one call, alone, whose request has one owner. */
  private void firstInteractiveCall(String server) {
    assertEquals(Seen.OWN, await(statelessCaller(server, -1)));
  }

  /** A 2026-07-28 caller: a leaseless round-trip call that answers the round it gets. */
  private CompletionStage<Seen> statelessCaller(String server, int i) {
    String prompt = "prompt of stateless caller " + i + " on " + server;
    return supervisor
        .call(
            "stateless-" + server + "-" + i + "-" + System.nanoTime(),
            server,
            McpMethods.TOOLS_CALL,
            RealFixture.toolCall(FixtureTools.SAMPLE, "prompt", prompt),
            CallOptions.defaults().withCapabilities(ClientCapability.SAMPLING).withoutLease())
        .thenCompose(
            outcome -> {
              if (!(outcome instanceof CallOutcome.InputRequired round)) {
                return CompletableFuture.completedFuture(Seen.NO_ROUND);
              }
              var asked = round.inputRequests().entrySet().iterator().next();
              if (!prompt.equals(promptOf(asked.getValue().params()))) {
                round.cancel();
                return CompletableFuture.completedFuture(Seen.WRONG_PROMPT);
              }
              return round
                  .answer(Map.of(asked.getKey(), sampled("answer to " + prompt)))
                  .thenApply(
                      done ->
                          done instanceof CallOutcome.Complete complete
                                  && ("answer to " + prompt)
                                      .equals(RealFixture.text(complete.response()))
                              ? Seen.OWN
                              : Seen.WRONG_PROMPT);
            });
  }

  /** A session-era client: a context with a lease and a listener that answers its own prompt. */
  private CompletionStage<Seen> sessionEraCaller(String server, String run, int i) {
    String context = "session-" + run + "-" + i;
    String prompt = "prompt of session " + i + " on " + server;
    PromptListener listener = new PromptListener(prompt);
    supervisor.register(context, listener);
    return supervisor
        .request(
            context,
            server,
            McpMethods.TOOLS_CALL,
            RealFixture.toolCall(FixtureTools.SAMPLE, "prompt", prompt),
            null,
            context + "-call")
        .thenApply(
            response -> {
              supervisor.releaseAll(context);
              if (!listener.wrong.isEmpty()) {
                return Seen.WRONG_PROMPT;
              }
              return !response.isError()
                      && ("answer to " + prompt).equals(RealFixture.text(response))
                  ? Seen.OWN
                  : Seen.NO_ROUND;
            });
  }

  /** Answers a sampling request for its own prompt; keeps any other prompt it was shown. */
  static final class PromptListener implements ContextListener {
    final String prompt;
    final ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();

    PromptListener(String prompt) {
      this.prompt = prompt;
    }

    @Override
    public void onNotification(String server, JsonRpcNotification notification) {}

    @Override
    public CompletionStage<JsonRpcResponse> onServerRequest(String server, JsonRpcRequest request) {
      String shown = promptOf(request.params());
      if (!prompt.equals(shown)) {
        wrong.add(shown);
      }
      return CompletableFuture.completedFuture(
          JsonRpcResponse.success(request.id(), sampled("answer to " + shown)));
    }
  }

  // --------------------------------------------------------------------------------------- helpers

  /** Starts {@code CALLERS} callers at once from racing threads; answers what they saw. */
  private Tally race(IntFunction<CompletionStage<Seen>> caller) {
    ExecutorService racers = Executors.newFixedThreadPool(CALLERS);
    CountDownLatch start = new CountDownLatch(1);
    List<CompletableFuture<Seen>> seen = new ArrayList<>();
    try {
      for (int i = 0; i < CALLERS; i++) {
        int index = i;
        CompletableFuture<Seen> result = new CompletableFuture<>();
        seen.add(result);
        racers.execute(
            () -> {
              try {
                start.await();
                caller
                    .apply(index)
                    .whenComplete(
                        (outcome, failure) -> {
                          if (failure != null) {
                            result.completeExceptionally(failure);
                          } else {
                            result.complete(outcome);
                          }
                        });
              } catch (InterruptedException e) {
                result.completeExceptionally(e);
              }
            });
      }
      start.countDown();
      return Tally.of(seen.stream().map(InteractiveCallsFixtureTest::await).toList());
    } finally {
      racers.shutdownNow();
    }
  }

  private static Seen await(CompletionStage<Seen> seen) {
    try {
      return seen.toCompletableFuture().get(WAIT.toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("no outcome within " + WAIT.multipliedBy(2) + ": " + e, e);
    }
  }

  static String promptOf(JsonNode samplingParams) {
    return samplingParams.path("messages").path(0).path("content").path("text").asText(null);
  }

  static ObjectNode sampled(String text) {
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.put("role", "assistant").put("model", "test").put("stopReason", "endTurn");
    result.putObject("content").put("type", "text").put("text", text);
    return result;
  }
}
