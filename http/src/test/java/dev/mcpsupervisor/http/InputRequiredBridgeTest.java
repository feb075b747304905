package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.FixtureHttpServer;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The bridge from a session-era server's sampling and elicitation requests to a 2026-07-28 client's
 * input_required rounds: the fixture over stdio asks, the stateless client answers in its retry,
 * and nothing stays pending.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class InputRequiredBridgeTest {

  private static final String FIXTURE = "/servers/fixture/mcp";
  private static final String ACCEPT = "{\"action\":\"accept\",\"content\":{\"answer\":\"%s\"}}";

  private static final String REMOTE = "/servers/remote/mcp";

  private FixtureHttpServer remote;
  private TestGateway gateway;
  private StatelessClient eliciting;

  @BeforeAll
  void start() {
    remote = FixtureServer.startHttp(0);
    gateway =
        TestGateway.start(
            TestGateway.gateway(List.of(), List.of(), 1024 * 1024, Duration.ofSeconds(30)),
            TestGateway.stdioFixture("fixture"),
            TestGateway.server(
                "remote",
                new ServerSpec.StreamableHttp(
                    URI.create(remote.url()), Map.of(), UpstreamProtocol.SESSION)));
    eliciting = new StatelessClient(gateway, "{\"elicitation\":{},\"sampling\":{}}");
  }

  @AfterAll
  void stop() {
    gateway.close();
    remote.close();
  }

  private static JsonNode result(HttpResponse<String> response) {
    return TestGateway.answer(response).path("result");
  }

  /** The only key of an input_required result's inputRequests. */
  private static String onlyKey(JsonNode inputRequired) {
    Iterator<String> keys = inputRequired.path("inputRequests").fieldNames();
    String key = keys.next();
    assertFalse(keys.hasNext(), inputRequired.toString());
    return key;
  }

  private static String retryParams(String key, String answer, String requestState) {
    return ",\"inputResponses\":{\""
        + key
        + "\":"
        + answer
        + "}"
        + (requestState == null ? "" : ",\"requestState\":\"" + requestState + "\"");
  }

  @Test
  void anElicitationBecomesAnInputRequiredRoundAndTheRetryGetsTheToolsResult() {
    HttpResponse<String> first =
        eliciting.callTool(FIXTURE, 1, "elicit", "{\"message\":\"Your name?\"}");
    JsonNode round = result(first);
    assertEquals(200, first.statusCode(), first.body());
    assertEquals("input_required", round.path("resultType").asText(), first.body());
    String key = onlyKey(round);
    JsonNode asked = round.path("inputRequests").path(key);
    assertEquals("elicitation/create", asked.path("method").asText());
    assertEquals("Your name?", asked.path("params").path("message").asText());
    assertTrue(round.path("requestState").isTextual(), first.body());

    HttpResponse<String> retry =
        eliciting.callTool(
            FIXTURE,
            2,
            "elicit",
            "{\"message\":\"Your name?\"}",
            retryParams(key, ACCEPT.formatted("Alice"), round.path("requestState").asText()));
    JsonNode done = TestGateway.answer(retry);
    assertEquals(2, done.path("id").asInt(), "the retry's id answers: " + retry.body());
    assertEquals("complete", done.path("result").path("resultType").asText(), retry.body());
    assertEquals("accept:{\"answer\":\"Alice\"}", TestGateway.text(done));
    awaitNoLeases();
  }

  @Test
  void aRoundIsAnsweredOnceAndATamperedStateIsRefused() {
    JsonNode round = result(eliciting.callTool(FIXTURE, 10, "elicit", "{\"message\":\"q\"}"));
    String key = onlyKey(round);
    String state = round.path("requestState").asText();

    HttpResponse<String> tampered =
        eliciting.callTool(
            FIXTURE,
            11,
            "elicit",
            "{\"message\":\"q\"}",
            retryParams(key, ACCEPT.formatted("x"), state + "-TAMPERED"));
    assertEquals(400, tampered.statusCode(), tampered.body());
    assertEquals(-32602, json(tampered.body()).path("error").path("code").asInt());
    assertEquals(11, json(tampered.body()).path("id").asInt());

    HttpResponse<String> otherTool =
        eliciting.callTool(
            FIXTURE, 12, "sample", "{\"prompt\":\"p\"}", retryParams(key, "{}", state));
    assertEquals(-32602, json(otherTool.body()).path("error").path("code").asInt(), "not its tool");

    HttpResponse<String> answered =
        eliciting.callTool(
            FIXTURE,
            13,
            "elicit",
            "{\"message\":\"q\"}",
            retryParams(key, ACCEPT.formatted("once"), state));
    assertEquals("accept:{\"answer\":\"once\"}", TestGateway.text(TestGateway.answer(answered)));

    HttpResponse<String> replayed =
        eliciting.callTool(
            FIXTURE,
            14,
            "elicit",
            "{\"message\":\"q\"}",
            retryParams(key, ACCEPT.formatted("twice"), state));
    assertEquals(-32602, json(replayed.body()).path("error").path("code").asInt(), "replayed");
    awaitNoLeases();
  }

  @Test
  void aMalformedAnswerIsRefusedAndAMissingOneIsAskedForAgain() {
    JsonNode round = result(eliciting.callTool(FIXTURE, 20, "elicit", "{\"message\":\"q\"}"));
    String key = onlyKey(round);
    String state = round.path("requestState").asText();

    // not an input response at all: refused at once, and the round stays open for a proper retry
    HttpResponse<String> malformed =
        eliciting.callTool(
            FIXTURE, 21, "elicit", "{\"message\":\"q\"}", retryParams(key, "12345", state));
    assertEquals(400, malformed.statusCode(), malformed.body());
    assertEquals(21, json(malformed.body()).path("id").asInt(), malformed.body());
    assertEquals(
        -32602, json(malformed.body()).path("error").path("code").asInt(), malformed.body());

    // no answer for the key asked (another key's is ignored): asked again in a new round
    JsonNode again =
        result(
            eliciting.callTool(
                FIXTURE,
                22,
                "elicit",
                "{\"message\":\"q\"}",
                retryParams("another-key", ACCEPT.formatted("x"), state)));
    assertEquals("input_required", again.path("resultType").asText(), again.toString());
    assertEquals(key, onlyKey(again));
    assertFalse(
        again.path("requestState").asText().equals(state), "each round has a state of its own");

    JsonNode done =
        TestGateway.answer(
            eliciting.callTool(
                FIXTURE,
                23,
                "elicit",
                "{\"message\":\"q\"}",
                retryParams(key, ACCEPT.formatted("late"), again.path("requestState").asText())));
    assertEquals("accept:{\"answer\":\"late\"}", TestGateway.text(done));
    awaitNoLeases();
  }

  @Test
  void answersInTheFirstRequestNeedNoRoundAtAll() {
    JsonNode round = result(eliciting.callTool(FIXTURE, 30, "elicit", "{\"message\":\"k\"}"));
    String key = onlyKey(round);
    String state = round.path("requestState").asText();
    // answer that round, so it does not linger; then a fresh call that brings its answer along
    eliciting.callTool(
        FIXTURE,
        31,
        "elicit",
        "{\"message\":\"k\"}",
        retryParams(key, ACCEPT.formatted("a"), state));

    HttpResponse<String> direct =
        eliciting.callTool(
            FIXTURE,
            32,
            "elicit",
            "{\"message\":\"k\"}",
            ",\"inputResponses\":{\""
                + key
                + "\":"
                + ACCEPT.formatted("given")
                + ",\"unexpected\":{\"x\":1}}");
    assertEquals("accept:{\"answer\":\"given\"}", TestGateway.text(TestGateway.answer(direct)));
    awaitNoLeases();
  }

  @Test
  void aClientWithoutTheCapabilityGets32021AndTheUpstreamCallIsCancelled() {
    StatelessClient bare = new StatelessClient(gateway, "{}");
    HttpResponse<String> refused = bare.callTool(FIXTURE, 40, "sample", "{\"prompt\":\"p\"}");
    assertEquals(400, refused.statusCode(), refused.body());
    JsonNode error = json(refused.body()).path("error");
    assertEquals(-32021, error.path("code").asInt(), refused.body());
    assertTrue(error.path("data").path("requiredCapabilities").has("sampling"), refused.body());
    assertEquals(40, json(refused.body()).path("id").asInt());
    awaitNoLeases();
  }

  @Test
  void anAbandonedRoundIsGivenUpAndNothingStaysPending() {
    // a gateway of its own, whose rounds are given up after 2 s
    try (TestGateway impatient =
        TestGateway.start(
            "mcp-supervisor.http.serverRequestTimeout = 2s",
            TestGateway.gateway(List.of(), List.of(), 1024 * 1024, Duration.ofSeconds(30)),
            TestGateway.stdioFixture("fixture"))) {
      StatelessClient client = new StatelessClient(impatient, "{\"elicitation\":{}}");
      JsonNode round = result(client.callTool(FIXTURE, 50, "elicit", "{\"message\":\"gone\"}"));
      String key = onlyKey(round);
      // the retry window passes: the call is cancelled upstream, its server request refused
      awaitNothingPending(impatient);

      HttpResponse<String> tooLate =
          client.callTool(
              FIXTURE,
              51,
              "elicit",
              "{\"message\":\"gone\"}",
              retryParams(key, ACCEPT.formatted("late"), round.path("requestState").asText()));
      assertEquals(-32602, json(tooLate.body()).path("error").path("code").asInt(), tooLate.body());
      assertEquals(51, json(tooLate.body()).path("id").asInt());
    }
  }

  /**
   * Over Streamable HTTP a server request comes on the stream of the call it belongs to (over stdio
   * nothing says which call asked: see docs/protocol.md).
   */
  @Test
  void twoHundredRacingClientsEachGetTheirOwnAnswer() {
    // more clients than the upstream takes calls at once (4 sessions x 32): a parked round holds
    // its call's place upstream, so each client retries as soon as its own round comes, as a real
    // one does
    int clients = 200;
    List<CompletableFuture<JsonNode>> answers = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      int client = i;
      String path = i % 2 == 0 ? REMOTE : "/mcp";
      String tool = i % 2 == 0 ? "elicit" : "remote__elicit";
      String arguments = "{\"message\":\"m" + i + "\"}";
      answers.add(
          eliciting
              .callToolAsync(path, 1000 + i, tool, arguments, "")
              .thenCompose(
                  first -> {
                    JsonNode round = result(first);
                    String key = onlyKey(round);
                    assertEquals(
                        "m" + client,
                        round
                            .path("inputRequests")
                            .path(key)
                            .path("params")
                            .path("message")
                            .asText(),
                        "client " + client + " was asked another client's question");
                    return eliciting.callToolAsync(
                        path,
                        2000 + client,
                        tool,
                        arguments,
                        retryParams(
                            key,
                            ACCEPT.formatted("a" + client),
                            round.path("requestState").asText()));
                  })
              .thenApply(TestGateway::answer));
    }
    for (int i = 0; i < clients; i++) {
      JsonNode done = joined(answers.get(i), "client " + i);
      assertEquals(2000 + i, done.path("id").asInt());
      assertEquals(
          "accept:{\"answer\":\"a" + i + "\"}",
          TestGateway.text(done),
          "client " + i + ": " + done);
    }
    awaitNoLeases();
  }

  private static <T> T joined(CompletableFuture<T> response, String what) {
    try {
      return response.join();
    } catch (java.util.concurrent.CompletionException e) {
      throw new AssertionError(what + " got no answer", e);
    }
  }

  /** Until no upstream session holds a call or a server request (bounded). */
  private static void awaitNothingPending(TestGateway gateway) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    int pending;
    do {
      pending =
          gateway.snapshot().keys().stream()
              .flatMap(key -> key.sessions().stream())
              .mapToInt(session -> session.inFlight() + session.awaitingAnswers())
              .sum();
    } while (pending > 0 && System.nanoTime() < deadline);
    assertEquals(0, pending, "calls and server requests still pending upstream");
  }

  private void awaitNoLeases() {
    gateway.awaitLeasedContexts(List.of());
  }
}
