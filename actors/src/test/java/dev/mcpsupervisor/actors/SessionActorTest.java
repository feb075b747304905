package dev.mcpsupervisor.actors;

import static dev.mcpsupervisor.actors.ServerKeyActorTest.callParams;
import static dev.mcpsupervisor.actors.TestSupervisor.await;
import static dev.mcpsupervisor.actors.TestSupervisor.awaitError;
import static dev.mcpsupervisor.actors.TestSupervisor.poll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.actors.FakeConnector.FakeConnection;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.delivery.ContextListener;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.Test;

/**
 * One upstream session: readiness, correlation, deadlines, failures and routing, against a scripted
 * upstream.
 */
class SessionActorTest {

  // ------------------------------------------------------------------------------------- readiness

  @Test
  void requestsSentWhileConnectingAreAnsweredInOrderOnceReady() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      test.connector.holdInitialize = true;
      List<CompletableFuture<JsonRpcResponse>> answers = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        int n = i;
        CompletableFuture<JsonRpcResponse> answer =
            test.supervisor
                .request("run", "alpha", McpMethods.TOOLS_CALL, numbered(n), null)
                .toCompletableFuture();
        answers.add(answer);
      }
      FakeConnection connection = test.connector.nextConnection();
      JsonRpcRequest initialize = connection.nextRequest();
      assertEquals(McpMethods.INITIALIZE, initialize.method());
      assertEquals(500, test.onlySession().stashed());
      assertTrue(
          connection.nothingSent(), "nothing but initialize goes out before the session is ready");

      connection.respond(initialize.id(), FakeConnector.initializeResult());
      for (int n = 0; n < 500; n++) {
        JsonRpcRequest call = connection.nextRequest();
        assertEquals(n, call.params().path("arguments").path("n").asInt(), "sent in arrival order");
        connection.respond(call.id(), FakeConnector.text("answer " + n));
      }
      for (int n = 0; n < 500; n++) {
        assertEquals(
            "answer " + n,
            await(answers.get(n)).result().path("content").get(0).path("text").asText());
      }
      assertEquals(0, test.onlySession().inFlight());
    }
  }

  @Test
  void stashOverflowIsAnsweredOverloaded() {
    try (TestSupervisor test =
        TestSupervisor.start(
            "mcp-supervisor.supervisor.stashCapacity = 500", TestSupervisor.shared("alpha"))) {
      test.connector.holdInitialize = true;
      List<CompletionStage<JsonRpcResponse>> waiting = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        waiting.add(
            test.supervisor.request("run", "alpha", McpMethods.TOOLS_CALL, numbered(i), null));
      }
      JsonRpcError error =
          awaitError(
              test.supervisor.request("run", "alpha", McpMethods.TOOLS_CALL, numbered(500), null));
      assertEquals(JsonRpcErrorCodes.OVERLOADED, error.code());
      long sessionId = test.onlySession().sessionId();
      assertEquals(
          "session " + sessionId + " of alpha is overloaded: 500 requests waiting",
          error.message());
      assertEquals(500, test.onlySession().stashed());
      waiting.forEach(stage -> assertFalse(stage.toCompletableFuture().isDone()));
    }
  }

  @Test
  void nothingReachesTheUpstreamBeforeInitializeCompletes() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      test.connector.holdInitialize = true;
      CompletionStage<JsonRpcResponse> list =
          test.supervisor.request("run", "alpha", McpMethods.TOOLS_LIST, cursor("c1"), null);
      FakeConnection connection = test.connector.nextConnection();
      JsonRpcRequest initialize = connection.nextRequest();
      assertEquals(1, test.onlySession().stashed()); // barrier
      assertTrue(connection.nothingSent());
      assertEquals("initializing", test.onlySession().state());

      connection.respond(initialize.id(), FakeConnector.initializeResult());
      JsonRpcRequest forwarded = connection.nextRequest();
      assertEquals(McpMethods.TOOLS_LIST, forwarded.method());
      List<String> order = connection.log.stream().map(SessionActorTest::methodOf).toList();
      assertEquals(
          List.of(McpMethods.INITIALIZE, McpMethods.NOTIFICATION_INITIALIZED),
          order.subList(0, 2),
          "initialize, then initialized, then anything else: " + order);
      ObjectNode initializeParams = (ObjectNode) initialize.params();
      assertEquals("mcp-supervisor", initializeParams.path("clientInfo").path("name").asText());
      assertTrue(initializeParams.path("capabilities").has("sampling"));
      assertTrue(initializeParams.path("capabilities").has("elicitation"));
      assertTrue(
          initializeParams.path("capabilities").path("roots").path("listChanged").asBoolean());
      connection.respond(
          forwarded.id(),
          JsonRpcCodec.emptyObject().set("tools", JsonRpcCodec.mapper().createArrayNode()));
      assertNull(await(list).error());
    }
  }

  @Test
  void aCallersInitializeIsAnsweredFromTheSessionsHandshakeAndNeverSentAgain() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      JsonRpcResponse answer =
          await(
              test.supervisor.request(
                  "run", "alpha", McpMethods.INITIALIZE, JsonRpcCodec.emptyObject(), null));
      assertEquals("fake", answer.result().path("serverInfo").path("name").asText());
      FakeConnection connection = test.connector.nextConnection();
      assertEquals(
          1,
          connection.log.stream().filter(m -> McpMethods.INITIALIZE.equals(methodOf(m))).count());
    }
  }

  @Test
  void stillInitializingErrorsAreRetriedWithinTheDeadline() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      CompletionStage<JsonRpcResponse> call =
          test.supervisor.request(
              "run", "alpha", McpMethods.TOOLS_CALL, callParams("echo"), Duration.ofSeconds(5));
      FakeConnection connection = test.connector.nextConnection();
      JsonRpcRequest first = connection.nextRequest();
      connection.push(
          JsonRpcResponse.failure(
              first.id(),
              JsonRpcErrorCodes.INVALID_REQUEST,
              "Invalid request: invalid during session initialization"));
      assertEquals(0, test.onlySession().inFlight()); // barrier; the call waits for its retry timer
      assertFalse(call.toCompletableFuture().isDone(), "not answered: it will be retried");
      test.timePasses(Duration.ofMillis(50)); // the first retry backoff
      JsonRpcRequest second = connection.nextRequest();
      assertNotEquals(first.id(), second.id(), "a retry is a new upstream request");
      connection.respond(second.id(), FakeConnector.text("finally"));
      assertEquals("finally", await(call).result().path("content").get(0).path("text").asText());

      // an upstream that never gets ready: retried until the deadline, then a timeout
      CompletionStage<JsonRpcResponse> doomed =
          test.supervisor.request(
              "run", "alpha", McpMethods.TOOLS_CALL, callParams("echo"), Duration.ofSeconds(2));
      long elapsedMillis = 0;
      for (int attempt = 0; attempt < 4; attempt++) {
        JsonRpcRequest request = connection.nextRequest();
        connection.push(JsonRpcResponse.failure(request.id(), -32002, "Server not initialized"));
        long backoffMillis = 50L << attempt; // 50, 100, 200, 400 ms
        test.onlySession(); // barrier: the retry timer is running
        test.timePasses(Duration.ofMillis(backoffMillis - 1));
        test.onlySession(); // barrier
        assertTrue(
            connection.nothingSent(),
            "retry " + (attempt + 1) + " waits its whole backoff of " + backoffMillis + " ms");
        test.timePasses(Duration.ofMillis(1));
        elapsedMillis += backoffMillis;
      }
      connection.push(
          JsonRpcResponse.failure(connection.nextRequest().id(), -32002, "Server not initialized"));
      test.onlySession(); // barrier: the fifth retry waits 800 ms
      test.timePasses(Duration.ofMillis(800));
      elapsedMillis += 800;
      // the sixth attempt, at 1,550 ms; its retry would wait the 1 s maximum, past the 2 s deadline
      connection.push(
          JsonRpcResponse.failure(connection.nextRequest().id(), -32002, "Server not initialized"));
      test.onlySession(); // barrier
      test.timePasses(Duration.ofMillis(2_000 - elapsedMillis));
      JsonRpcError error = awaitError(doomed);
      assertEquals(JsonRpcErrorCodes.REQUEST_TIMEOUT, error.code());
      test.timePasses(Duration.ofSeconds(10));
      test.onlySession(); // barrier
      assertTrue(
          connection.nothingSent(),
          () ->
              "no retry is sent after the deadline, but: "
                  + JsonRpcCodec.toString(connection.sent.peek()));
    }
  }

  // -------------------------------------------------------------------------------------- failures

  @Test
  void connectionDeathRetriesSafeCallsOnceAndAnswersOthersSessionLost() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      test.connector.addTool("lookup", true, false);
      test.connector.addTool("upsert", false, true);
      test.connector.addTool("send_mail", false, false);
      await(test.supervisor.acquire("run", "alpha"));
      FakeConnection first = test.connector.nextConnection();

      List<CompletionStage<JsonRpcResponse>> answers = new ArrayList<>();
      List<String> kinds = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        String kind = List.of("list", "lookup", "upsert", "send_mail").get(i % 4);
        kinds.add(kind);
        answers.add(
            kind.equals("list")
                ? test.supervisor.request(
                    "run", "alpha", McpMethods.TOOLS_LIST, cursor("c" + i), null)
                : test.supervisor.request(
                    "run", "alpha", McpMethods.TOOLS_CALL, numberedCall(kind, i), null));
      }
      List<JsonRpcRequest> inFlight = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        inFlight.add(first.nextRequest());
      }
      assertEquals(100, test.onlySession().inFlight());

      first.die("exit code 137");
      test.awaitAssert(() -> assertEquals("restarting", test.onlySession().state()));
      Set<String> refs = new HashSet<>();
      for (int i = 0; i < 100; i++) {
        if (kinds.get(i).equals("send_mail")) {
          JsonRpcError error = awaitError(answers.get(i));
          assertEquals(JsonRpcErrorCodes.UPSTREAM_SESSION_LOST, error.code());
          String ref = error.data().path("ref").asText();
          assertEquals(
              "upstream session of alpha was lost while tools/call was in flight (ref " + ref + ")",
              error.message());
          assertTrue(error.data().path("retryable").asBoolean());
          assertEquals("alpha", error.data().path("server").asText());
          assertFalse(error.toString().contains("exit code 137"), "the why goes to the log");
          refs.add(ref);
        } else {
          assertFalse(answers.get(i).toCompletableFuture().isDone());
        }
      }
      assertEquals(1, refs.size(), "one loss: one ref, one log line");

      test.timePasses(Duration.ofMillis(199)); // the minimum backoff is 200 ms
      test.onlySession();
      assertEquals(1, test.connector.connects.get(), "no reconnect before the minimum backoff");
      test.timePasses(Duration.ofMillis(41)); // 200 ms plus at most 20 % jitter
      FakeConnection second = test.connector.nextConnection();
      assertEquals(2, test.connector.connects.get());

      List<Integer> retried = new ArrayList<>();
      for (int i = 0; i < 75; i++) {
        JsonRpcRequest request = second.nextRequest();
        int n =
            request.method().equals(McpMethods.TOOLS_LIST)
                ? Integer.parseInt(request.params().path("cursor").asText().substring(1))
                : request.params().path("arguments").path("n").asInt();
        retried.add(n);
        second.respond(request.id(), FakeConnector.text("retried " + n));
      }
      List<Integer> expected = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        if (!kinds.get(i).equals("send_mail")) {
          expected.add(i);
        }
      }
      assertEquals(expected, retried, "safe calls are retried first, in their original order");
      for (int i = 0; i < 100; i++) {
        if (!kinds.get(i).equals("send_mail")) {
          assertEquals(
              "retried " + i,
              await(answers.get(i)).result().path("content").get(0).path("text").asText());
        }
      }
      assertEquals(1, test.observer.restarted.get());
      assertEquals(1, test.onlySession().restarts());
      assertEquals(0, test.onlySession().inFlight());
    }
  }

  @Test
  void aSafeCallLostTwiceIsAnsweredSessionLost() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      CompletionStage<JsonRpcResponse> list =
          test.supervisor.request("run", "alpha", McpMethods.TOOLS_LIST, cursor("c"), null);
      FakeConnection first = test.connector.nextConnection();
      first.nextRequest();
      first.die("killed");
      test.awaitAssert(() -> assertEquals("restarting", test.onlySession().state()));
      test.timePasses(Duration.ofSeconds(1));
      FakeConnection second = test.connector.nextConnection();
      second.nextRequest(); // the one retry
      second.die("killed again");
      JsonRpcError error = awaitError(list);
      assertEquals(JsonRpcErrorCodes.UPSTREAM_SESSION_LOST, error.code());
      assertTrue(error.data().path("retryable").asBoolean());
    }
  }

  // ----------------------------------------------------------------------------- deadlines, cancel

  @Test
  void deadlineAnswersTimeoutCancelsUpstreamAndFreesThePendingEntry() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      CompletionStage<JsonRpcResponse> call =
          test.supervisor.request(
              "run", "alpha", McpMethods.TOOLS_CALL, callParams("slow"), Duration.ofSeconds(5));
      FakeConnection connection = test.connector.nextConnection();
      JsonRpcRequest sent = connection.nextRequest();
      assertEquals(1, test.onlySession().inFlight());

      test.timePasses(Duration.ofSeconds(5));
      JsonRpcError error = awaitError(call);
      assertEquals(JsonRpcErrorCodes.REQUEST_TIMEOUT, error.code());
      assertEquals("request tools/call to alpha timed out after 5000 ms", error.message());
      JsonRpcNotification cancelled = connection.nextNotification();
      assertEquals(McpMethods.NOTIFICATION_CANCELLED, cancelled.method());
      assertEquals(sent.id(), cancelled.params().get("requestId"));
      assertEquals(0, test.onlySession().inFlight());

      connection.respond(sent.id(), FakeConnector.text("too late")); // dropped, answered once only
      assertEquals(0, test.onlySession().inFlight());
      assertEquals(1, test.observer.completed.get("timeout").get());
    }
  }

  @Test
  void callerCancellationCancelsUpstreamAndFreesThePendingEntry() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      CompletionStage<JsonRpcResponse> call =
          test.supervisor.request("run", "alpha", McpMethods.TOOLS_CALL, callParams("slow"), null);
      FakeConnection connection = test.connector.nextConnection();
      JsonRpcRequest sent = connection.nextRequest();
      assertEquals(1, test.onlySession().inFlight());

      assertTrue(call.toCompletableFuture().cancel(true));
      JsonRpcNotification cancelled = connection.nextNotification();
      assertEquals(McpMethods.NOTIFICATION_CANCELLED, cancelled.method());
      assertEquals(sent.id(), cancelled.params().get("requestId"));
      assertEquals(0, test.onlySession().inFlight());
      assertEquals(1, test.observer.completed.get("cancelled").get());
    }
  }

  // --------------------------------------------------------------------------------------- routing

  @Test
  void progressWithTheSameTokenFromTwoContextsReachesEachCaller() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      RecordingListener first = new RecordingListener();
      RecordingListener second = new RecordingListener();
      test.supervisor.register("first", first);
      test.supervisor.register("second", second);
      test.supervisor.request(
          "first", "alpha", McpMethods.TOOLS_CALL, withProgressToken("tok"), null);
      test.supervisor.request(
          "second", "alpha", McpMethods.TOOLS_CALL, withProgressToken("tok"), null);
      FakeConnection connection = test.connector.nextConnection();
      JsonRpcRequest fromFirst = connection.nextRequest();
      JsonRpcRequest fromSecond = connection.nextRequest();
      String firstToken = fromFirst.params().path("_meta").path("progressToken").asText();
      String secondToken = fromSecond.params().path("_meta").path("progressToken").asText();
      assertNotEquals("tok", firstToken);
      assertNotEquals(firstToken, secondToken, "one session, two callers, two upstream tokens");

      connection.push(progress(secondToken, 1));
      JsonRpcNotification toSecond = second.nextNotification();
      assertEquals("tok", toSecond.params().path("progressToken").asText());
      assertEquals(1, toSecond.params().path("progress").asInt());
      connection.push(progress(firstToken, 2));
      JsonRpcNotification toFirst = first.nextNotification();
      assertEquals("tok", toFirst.params().path("progressToken").asText());
      assertEquals(2, toFirst.params().path("progress").asInt());
      assertTrue(
          first.notifications.isEmpty() && second.notifications.isEmpty(), "each got only its own");
    }
  }

  @Test
  void listChangedReachesEveryContextAndDropsTheToolCache() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      RecordingListener first = new RecordingListener();
      RecordingListener second = new RecordingListener();
      RecordingListener outsider = new RecordingListener();
      test.supervisor.register("first", first);
      test.supervisor.register("second", second);
      test.supervisor.register("outsider", outsider);
      await(test.supervisor.acquire("first", "alpha"));
      await(test.supervisor.acquire("second", "alpha"));
      FakeConnection connection = test.connector.nextConnection();

      connection.push(new JsonRpcNotification(McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED, null));
      assertEquals(McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED, first.nextNotification().method());
      assertEquals(McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED, second.nextNotification().method());
      test.awaitAssert(
          () ->
              assertEquals(
                  2,
                  connection.log.stream()
                      .filter(m -> McpMethods.TOOLS_LIST.equals(methodOf(m)))
                      .count(),
                  "the tool annotations are fetched again"));
      ObjectNode log = JsonRpcCodec.emptyObject().put("level", "info").put("data", "hello");
      connection.push(new JsonRpcNotification(McpMethods.NOTIFICATION_MESSAGE, log));
      assertEquals("hello", first.nextNotification().params().path("data").asText());
      assertEquals("hello", second.nextNotification().params().path("data").asText());
      test.onlySession();
      assertTrue(outsider.notifications.isEmpty());
    }
  }

  @Test
  void samplingRequestGoesToTheOwningContextAndItsAnswerGoesUpstreamWithTheUpstreamId() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      RecordingListener first = new RecordingListener();
      RecordingListener second = new RecordingListener();
      test.supervisor.register("first", first);
      test.supervisor.register("second", second);
      test.supervisor.request("first", "alpha", McpMethods.TOOLS_CALL, callParams("a"), null);
      test.supervisor.request("second", "alpha", McpMethods.TOOLS_CALL, callParams("b"), null);
      FakeConnection connection = test.connector.nextConnection();
      JsonRpcRequest fromFirst = connection.nextRequest();
      JsonRpcRequest fromSecond = connection.nextRequest();

      // the transport says which request it belongs to: the second context's
      JsonRpcRequest sampling =
          new JsonRpcRequest(
              TextNode.valueOf("up-7"),
              McpMethods.SAMPLING_CREATE_MESSAGE,
              JsonRpcCodec.emptyObject());
      connection.push(sampling, fromSecond.id());
      JsonRpcRequest delivered = second.nextServerRequest();
      assertEquals(McpMethods.SAMPLING_CREATE_MESSAGE, delivered.method());
      assertNotEquals(
          TextNode.valueOf("up-7"), delivered.id(), "the context sees the supervisor's own id");
      second.answer(
          JsonRpcResponse.success(delivered.id(), JsonRpcCodec.emptyObject().put("model", "m")));
      JsonRpcMessage answer = connection.nextSent();
      assertTrue(answer instanceof JsonRpcResponse);
      assertEquals(TextNode.valueOf("up-7"), ((JsonRpcResponse) answer).id());
      assertEquals("m", ((JsonRpcResponse) answer).result().path("model").asText());

      // no hint (stdio) with both contexts in flight: either could have caused it, so neither
      // is asked and the upstream is refused at once
      connection.push(
          new JsonRpcRequest(
              TextNode.valueOf("up-8"),
              McpMethods.SAMPLING_CREATE_MESSAGE,
              JsonRpcCodec.emptyObject()));
      JsonRpcResponse refused = (JsonRpcResponse) connection.nextSent();
      assertEquals(TextNode.valueOf("up-8"), refused.id());
      assertEquals(JsonRpcErrorCodes.NO_CLIENT_FOR_SERVER_REQUEST, refused.error().code());
      assertTrue(
          refused
              .error()
              .message()
              .startsWith("ambiguous server request: more than one client shares this session"),
          refused.error().message());

      // the request names the call in its _meta: that call's context, without our id
      ObjectNode params = JsonRpcCodec.emptyObject();
      params.putObject("_meta").set(SupervisorErrors.RELATED_REQUEST, fromFirst.id());
      connection.push(
          new JsonRpcRequest(TextNode.valueOf("up-9"), McpMethods.ELICITATION_CREATE, params));
      JsonRpcRequest elicitation = first.nextServerRequest();
      assertEquals(McpMethods.ELICITATION_CREATE, elicitation.method());
      assertFalse(elicitation.params().path("_meta").has(SupervisorErrors.RELATED_REQUEST));
      first.answerFailure(new IllegalStateException("no user here"));
      JsonRpcResponse failed = (JsonRpcResponse) connection.nextSent();
      assertEquals(TextNode.valueOf("up-9"), failed.id());
      assertEquals(JsonRpcErrorCodes.NO_CLIENT_FOR_SERVER_REQUEST, failed.error().code());
      assertTrue(second.serverRequests.isEmpty(), "the second context saw none of these");
    }
  }

  @Test
  void serverRequestWithNoRequestInFlightIsAnsweredWithAnErrorAtOnce() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      await(test.supervisor.acquire("first", "alpha"));
      FakeConnection connection = test.connector.nextConnection();
      connection.push(
          new JsonRpcRequest(TextNode.valueOf("up-1"), McpMethods.ELICITATION_CREATE, null));
      JsonRpcResponse answer = (JsonRpcResponse) connection.nextSent();
      assertEquals(TextNode.valueOf("up-1"), answer.id());
      assertEquals(JsonRpcErrorCodes.NO_CLIENT_FOR_SERVER_REQUEST, answer.error().code());
    }
  }

  // --------------------------------------------------------------------------------------- helpers

  static JsonNode numbered(int n) {
    return numberedCall("echo", n);
  }

  static JsonNode numberedCall(String tool, int n) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("name", tool);
    params.putObject("arguments").put("n", n);
    return params;
  }

  static JsonNode cursor(String cursor) {
    return JsonRpcCodec.emptyObject().put("cursor", cursor);
  }

  static JsonNode withProgressToken(String token) {
    ObjectNode params = (ObjectNode) callParams("long");
    params.putObject("_meta").put("progressToken", token);
    return params;
  }

  static JsonRpcNotification progress(String token, int progress) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("progressToken", token);
    params.put("progress", progress);
    return new JsonRpcNotification(McpMethods.NOTIFICATION_PROGRESS, params);
  }

  static String methodOf(JsonRpcMessage message) {
    if (message instanceof JsonRpcRequest request) {
      return request.method();
    }
    if (message instanceof JsonRpcNotification notification) {
      return notification.method();
    }
    return "response";
  }

  /**
   * A context's listener that records what it receives and answers server requests when the test
   * says.
   */
  static final class RecordingListener implements ContextListener {
    final LinkedBlockingQueue<JsonRpcNotification> notifications = new LinkedBlockingQueue<>();
    final LinkedBlockingQueue<JsonRpcRequest> serverRequests = new LinkedBlockingQueue<>();
    final LinkedBlockingQueue<CompletableFuture<JsonRpcResponse>> answers =
        new LinkedBlockingQueue<>();

    @Override
    public void onNotification(String server, JsonRpcNotification notification) {
      notifications.add(notification);
    }

    @Override
    public CompletionStage<JsonRpcResponse> onServerRequest(String server, JsonRpcRequest request) {
      CompletableFuture<JsonRpcResponse> answer = new CompletableFuture<>();
      answers.add(answer);
      serverRequests.add(request);
      return answer;
    }

    JsonRpcNotification nextNotification() {
      return poll(notifications);
    }

    JsonRpcRequest nextServerRequest() {
      return poll(serverRequests);
    }

    void answer(JsonRpcResponse response) {
      poll(answers).complete(response);
    }

    void answerFailure(Throwable failure) {
      poll(answers).completeExceptionally(failure);
    }
  }
}
