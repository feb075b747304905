package dev.mcpsupervisor.actors;

import static dev.mcpsupervisor.actors.ServerKeyActorTest.callParams;
import static dev.mcpsupervisor.actors.SessionActorTest.numbered;
import static dev.mcpsupervisor.actors.SessionActorTest.progress;
import static dev.mcpsupervisor.actors.SessionActorTest.withProgressToken;
import static dev.mcpsupervisor.actors.TestSupervisor.await;
import static dev.mcpsupervisor.actors.TestSupervisor.poll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.actors.FakeConnector.FakeConnection;
import dev.mcpsupervisor.actors.delivery.ContextListener;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.Root;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Where a session's notifications and server-to-client requests go, and that an answer never
 * overtakes what the upstream sent before it.
 */
class ContextRoutingTest {

  private static final int NOTIFICATIONS_PER_KIND = 10;

  // ------------------------------------------------------------------------------ answers in order

  @Test
  void everyNotificationOfACallReachesTheListenerBeforeItsAnswerCompletes() {
    try (TestSupervisor test =
        TestSupervisor.start(TestSupervisor.server("alpha", Isolation.SHARED, 1, 1000))) {
      // the upstream streams progress and logging on each call's response stream, then answers it
      test.connector.answerCalls =
          request -> {
            FakeConnection connection = test.connector.connections.peek();
            String token = request.params().path("_meta").path("progressToken").asText();
            for (int i = 1; i <= NOTIFICATIONS_PER_KIND; i++) {
              connection.push(progress(token, i), request.id());
              connection.push(
                  log("call " + request.params().path("arguments").path("n").asInt()),
                  request.id());
            }
            return JsonRpcResponse.success(request.id(), FakeConnector.text("done"));
          };
      int contexts = 300;
      Map<String, CountingListener> listeners = new ConcurrentHashMap<>();
      for (int c = 0; c < contexts; c++) {
        CountingListener listener = new CountingListener();
        listeners.put("run-" + c, listener);
        test.supervisor.register("run-" + c, listener);
      }
      List<CompletableFuture<Integer>> seenAtAnswer = new ArrayList<>();
      for (int c = 0; c < contexts; c++) {
        CountingListener listener = listeners.get("run-" + c);
        ObjectNode params = (ObjectNode) withProgressToken("tok-" + c);
        params.putObject("arguments").put("n", c);
        seenAtAnswer.add(
            test.supervisor
                .request("run-" + c, "alpha", McpMethods.TOOLS_CALL, params, null)
                .toCompletableFuture()
                .thenApply(answer -> listener.notifications.get()));
      }
      for (int c = 0; c < contexts; c++) {
        assertEquals(
            2 * NOTIFICATIONS_PER_KIND,
            (int) await(seenAtAnswer.get(c)),
            "run-" + c + ": all before the answer");
      }
      listeners.forEach(
          (context, listener) ->
              assertEquals(
                  2 * NOTIFICATIONS_PER_KIND,
                  listener.notifications.get(),
                  context + " got only its own"));
    }
  }

  @Test
  void sessionWideLoggingSentBeforeAnAnswerReachesTheCallerFirst() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      // stdio: no transport hint, so the logs go to every leased context; each caller must see its
      // own call's logs
      test.connector.answerCalls =
          request -> {
            FakeConnection connection = test.connector.connections.peek();
            String name = "call " + request.params().path("arguments").path("n").asInt();
            for (int i = 0; i < 5; i++) {
              connection.push(log(name));
            }
            return JsonRpcResponse.success(request.id(), FakeConnector.text(name));
          };
      int contexts = 20;
      int callsEach = 10;
      List<CountingListener> listeners = new ArrayList<>();
      for (int c = 0; c < contexts; c++) {
        CountingListener listener = new CountingListener();
        listeners.add(listener);
        test.supervisor.register("run-" + c, listener);
        await(test.supervisor.acquire("run-" + c, "alpha"));
      }
      List<CompletableFuture<Boolean>> sawOwnLogs = new ArrayList<>();
      for (int n = 0; n < contexts * callsEach; n++) {
        CountingListener listener = listeners.get(n % contexts);
        String name = "call " + n;
        sawOwnLogs.add(
            test.supervisor
                .request("run-" + (n % contexts), "alpha", McpMethods.TOOLS_CALL, numbered(n), null)
                .toCompletableFuture()
                .thenApply(answer -> listener.logCount(name) == 5));
      }
      for (int n = 0; n < sawOwnLogs.size(); n++) {
        assertTrue(
            await(sawOwnLogs.get(n)), "call " + n + ": its five logs came before its answer");
      }
    }
  }

  // --------------------------------------------------------------------------- logging per request

  @Test
  void loggingOnACallsResponseStreamGoesOnlyToThatCallsContextWithItsTag() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      CountingListener first = new CountingListener();
      CountingListener second = new CountingListener();
      test.supervisor.register("first", first);
      test.supervisor.register("second", second);
      test.supervisor.request("first", "alpha", McpMethods.TOOLS_CALL, numbered(1), null, "post-1");
      test.supervisor.request(
          "second", "alpha", McpMethods.TOOLS_CALL, withProgressToken("t"), null, "post-2");
      FakeConnection connection = test.connector.nextConnection();
      JsonRpcRequest fromFirst = connection.nextRequest();
      JsonRpcRequest fromSecond = connection.nextRequest();

      connection.push(log("for the second"), fromSecond.id());
      assertEquals(new Delivered("for the second", "post-2"), second.next());
      String upstreamToken = fromSecond.params().path("_meta").path("progressToken").asText();
      connection.push(progress(upstreamToken, 1));
      assertEquals(new Delivered(McpMethods.NOTIFICATION_PROGRESS, "post-2"), second.next());
      connection.push(log("for the first"), fromFirst.id());
      assertEquals(new Delivered("for the first", "post-1"), first.next());
      connection.push(log("for everyone"));
      assertEquals(new Delivered("for everyone", null), first.next());
      assertEquals(new Delivered("for everyone", null), second.next());
      assertEquals(0, first.logCount("for the second"), "the first never sees the second's logs");
      assertEquals(0, second.logCount("for the first"));
    }
  }

  @Test
  void aServerRequestCarriesTheTagOfTheCallItBelongsTo() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      CountingListener listener = new CountingListener();
      test.supervisor.register("run", listener);
      test.supervisor.request("run", "alpha", McpMethods.TOOLS_CALL, numbered(1), null, "post-1");
      test.supervisor.request("run", "alpha", McpMethods.TOOLS_CALL, numbered(2), null, "post-2");
      FakeConnection connection = test.connector.nextConnection();
      connection.nextRequest();
      JsonRpcRequest second = connection.nextRequest();

      connection.push(
          new JsonRpcRequest(TextNode.valueOf("up-1"), McpMethods.SAMPLING_CREATE_MESSAGE, null),
          second.id());
      assertEquals("post-2", listener.nextServerRequest().tag());
    }
  }

  // ------------------------------------------------------------------------------- server requests
  // with no call

  @Test
  void rootsListWithNoCallInFlightGoesToTheContextThatSentListChanged() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      CountingListener first = new CountingListener();
      CountingListener second = new CountingListener();
      test.supervisor.register("first", first);
      test.supervisor.register("second", second);
      await(test.supervisor.acquire("first", "alpha"));
      await(test.supervisor.acquire("second", "alpha"));
      FakeConnection connection = test.connector.nextConnection();

      test.supervisor.notify("second", "alpha", McpMethods.NOTIFICATION_ROOTS_LIST_CHANGED, null);
      assertEquals(
          McpMethods.NOTIFICATION_ROOTS_LIST_CHANGED, connection.nextNotification().method());
      connection.push(new JsonRpcRequest(TextNode.valueOf("up-1"), McpMethods.ROOTS_LIST, null));
      ServerRequestSeen asked = second.nextServerRequest();
      assertEquals(McpMethods.ROOTS_LIST, asked.request().method());
      assertNull(asked.tag(), "no call of the context is in flight");
      asked.answer().complete(JsonRpcResponse.success(asked.request().id(), roots()));
      JsonRpcResponse upstream = (JsonRpcResponse) connection.nextSent();
      assertEquals(TextNode.valueOf("up-1"), upstream.id());
      assertEquals("file:///work", upstream.result().path("roots").path(0).path("uri").asText());
      assertTrue(first.serverRequests.isEmpty());
    }
  }

  @Test
  void serverRequestWithNoCallInFlightAndTwoLeasesIsRefusedThenGoesToTheOnlyLeaseLeft() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      CountingListener listening = new CountingListener();
      await(test.supervisor.acquire("silent", "alpha"));
      test.supervisor.register("listening", listening);
      await(test.supervisor.acquire("listening", "alpha"));
      FakeConnection connection = test.connector.nextConnection();

      // the silent context has no listener, but it could have caused the request as well
      connection.push(elicitation("up-1"));
      JsonRpcResponse refused = (JsonRpcResponse) connection.nextSent();
      assertEquals(TextNode.valueOf("up-1"), refused.id());
      assertTrue(refused.error().message().startsWith("ambiguous server request"));
      assertTrue(listening.serverRequests.isEmpty());

      await(test.supervisor.release("silent", "alpha"));
      test.onlySession(); // a barrier: the release has reached the session
      connection.push(elicitation("up-2"));
      ServerRequestSeen asked = listening.nextServerRequest();
      asked.answer().complete(JsonRpcResponse.success(asked.request().id(), declined()));
      assertEquals(TextNode.valueOf("up-2"), ((JsonRpcResponse) connection.nextSent()).id());
    }
  }

  @Test
  void rootsAndPingAskedDuringCallsAreAnsweredHereAndTeachNoToolToBeInteractive() {
    ServerConfig alpha =
        withRoots(TestSupervisor.shared("alpha"), List.of(new Root("file:///work", "work")));
    try (TestSupervisor test = TestSupervisor.start(alpha)) {
      CountingListener first = new CountingListener();
      CountingListener second = new CountingListener();
      test.supervisor.register("first", first);
      test.supervisor.register("second", second);
      CompletionStage<JsonRpcResponse> firstCall =
          test.supervisor.request(
              "first", "alpha", McpMethods.TOOLS_CALL, callParams("echo"), null);
      CompletionStage<JsonRpcResponse> secondCall =
          test.supervisor.request(
              "second", "alpha", McpMethods.TOOLS_CALL, callParams("echo"), null);
      FakeConnection connection = test.connector.nextConnection();
      List<JsonRpcRequest> calls = List.of(connection.nextRequest(), connection.nextRequest());

      // no hint (stdio), two callers in flight: neither announced roots, so neither is asked
      connection.push(new JsonRpcRequest(TextNode.valueOf("up-1"), McpMethods.ROOTS_LIST, null));
      JsonRpcResponse roots = (JsonRpcResponse) connection.nextSent();
      assertEquals(TextNode.valueOf("up-1"), roots.id());
      assertEquals(
          "{\"roots\":[{\"uri\":\"file:///work\",\"name\":\"work\"}]}",
          roots.result().toString(),
          "the configured roots");
      connection.push(new JsonRpcRequest(TextNode.valueOf("up-2"), McpMethods.PING, null));
      JsonRpcResponse pong = (JsonRpcResponse) connection.nextSent();
      assertEquals(TextNode.valueOf("up-2"), pong.id());
      assertEquals("{}", pong.result().toString());
      assertTrue(first.serverRequests.isEmpty() && second.serverRequests.isEmpty());

      calls.forEach(call -> connection.respond(call.id(), FakeConnector.text("done")));
      await(firstCall);
      await(secondCall);
      // a tool learnt interactive would put the next two callers' calls on two sessions
      test.supervisor.request("third", "alpha", McpMethods.TOOLS_CALL, callParams("echo"), null);
      test.supervisor.request("fourth", "alpha", McpMethods.TOOLS_CALL, callParams("echo"), null);
      connection.nextRequest();
      connection.nextRequest();
      assertEquals(1, test.connector.connects.get(), "one upstream session for plain calls");
    }
  }

  @Test
  void aListenerRegisteredAfterTheLeaseStillGetsTheSessionsMessages() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      await(test.supervisor.acquire("late", "alpha"));
      CountingListener late = new CountingListener();
      test.supervisor.register("late", late);
      test.onlySession(); // a barrier: the registration has reached the session
      FakeConnection connection = test.connector.nextConnection();
      connection.push(log("hello"));
      assertEquals(new Delivered("hello", null), late.next());
    }
  }

  // --------------------------------------------------------------------------------------- helpers

  private static JsonRpcNotification log(String data) {
    ObjectNode params = JsonRpcCodec.emptyObject().put("level", "info").put("data", data);
    return new JsonRpcNotification(McpMethods.NOTIFICATION_MESSAGE, params);
  }

  private static ServerConfig withRoots(ServerConfig server, List<Root> roots) {
    return server.toBuilder().roots(roots).build();
  }

  private static JsonRpcRequest elicitation(String id) {
    return new JsonRpcRequest(
        TextNode.valueOf(id), McpMethods.ELICITATION_CREATE, JsonRpcCodec.emptyObject());
  }

  private static JsonNode declined() {
    return JsonRpcCodec.emptyObject().put("action", "decline");
  }

  private static JsonNode roots() {
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.putArray("roots").addObject().put("uri", "file:///work");
    return result;
  }

  /** What a listener saw: a log's data (or the notification's method) and the related tag. */
  record Delivered(String what, String tag) {}

  record ServerRequestSeen(
      JsonRpcRequest request, String tag, CompletableFuture<JsonRpcResponse> answer) {}

  /** Counts what arrives (on the delivery actor's thread) and keeps it for inspection. */
  static final class CountingListener implements ContextListener {
    final AtomicInteger notifications = new AtomicInteger();
    final Map<String, AtomicInteger> logs = new ConcurrentHashMap<>();
    final LinkedBlockingQueue<Delivered> delivered = new LinkedBlockingQueue<>();
    final LinkedBlockingQueue<ServerRequestSeen> serverRequests = new LinkedBlockingQueue<>();

    @Override
    public void onNotification(String server, JsonRpcNotification notification) {
      throw new AssertionError("the tagged variant is called");
    }

    @Override
    public void onNotification(String server, JsonRpcNotification notification, String relatedTag) {
      String what =
          McpMethods.NOTIFICATION_MESSAGE.equals(notification.method())
              ? notification.params().path("data").asText()
              : notification.method();
      logs.computeIfAbsent(what, notUsed -> new AtomicInteger()).incrementAndGet();
      delivered.add(new Delivered(what, relatedTag));
      notifications.incrementAndGet();
    }

    @Override
    public CompletionStage<JsonRpcResponse> onServerRequest(String server, JsonRpcRequest request) {
      throw new AssertionError("the tagged variant is called");
    }

    @Override
    public CompletionStage<JsonRpcResponse> onServerRequest(
        String server, JsonRpcRequest request, String relatedTag) {
      CompletableFuture<JsonRpcResponse> answer = new CompletableFuture<>();
      serverRequests.add(new ServerRequestSeen(request, relatedTag, answer));
      return answer;
    }

    int logCount(String data) {
      AtomicInteger count = logs.get(data);
      return count == null ? 0 : count.get();
    }

    Delivered next() {
      return poll(delivered);
    }

    ServerRequestSeen nextServerRequest() {
      return poll(serverRequests);
    }
  }
}
