package dev.mcpsupervisor.actors;

import static dev.mcpsupervisor.actors.SessionActorTest.cursor;
import static dev.mcpsupervisor.actors.SessionActorTest.methodOf;
import static dev.mcpsupervisor.actors.TestSupervisor.await;
import static dev.mcpsupervisor.actors.TestSupervisor.awaitError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.FakeConnector.FakeConnection;
import dev.mcpsupervisor.actors.SessionActorTest.RecordingListener;
import dev.mcpsupervisor.actors.base.SupervisorSettings;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The key actor answers lists from its cache: one upstream call for many callers, dropped when the
 * upstream says the list changed or its connection is lost, kept per page, never shared across
 * contexts of a context-isolated server. Lists here carry a cursor, which the fake upstream leaves
 * to the test to answer (it answers the session's own cursorless tools/list itself).
 */
class ListCachingTest {

  @Test
  void fiveHundredRacingListsOfOneKeyCostOneUpstreamCall() throws Exception {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      await(test.supervisor.acquire("warm", "alpha"));
      FakeConnection connection = test.connector.nextConnection();

      List<CompletionStage<JsonRpcResponse>> answers =
          Collections.synchronizedList(new ArrayList<>());
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService callers = Executors.newFixedThreadPool(8);
      for (int i = 0; i < 500; i++) {
        String context = "ctx-" + i;
        callers.execute(
            () -> {
              awaitLatch(start);
              answers.add(
                  test.supervisor.request(
                      context, "alpha", McpMethods.TOOLS_LIST, cursor("page-1"), null));
            });
      }
      start.countDown();
      callers.shutdown();
      assertTrue(callers.awaitTermination(10, TimeUnit.SECONDS));
      // a barrier: the key actor handles what it was sent in order, so every list is in by now
      CompletionStage<JsonRpcResponse> barrier =
          test.supervisor.request("warm", "alpha", McpMethods.PROMPTS_GET, prompt(), null);

      JsonRpcRequest fetch = connection.nextRequest();
      assertEquals(McpMethods.TOOLS_LIST, fetch.method());
      assertEquals(cursor("page-1"), fetch.params());
      JsonRpcRequest get = connection.nextRequest();
      assertEquals(McpMethods.PROMPTS_GET, get.method(), "one fetch, nothing else, before it");
      assertTrue(answers.stream().noneMatch(a -> a.toCompletableFuture().isDone()));

      connection.respond(fetch.id(), tools("echo"));
      connection.respond(get.id(), JsonRpcCodec.emptyObject());
      await(barrier);
      for (CompletionStage<JsonRpcResponse> answer : answers) {
        JsonNode result = await(answer).result();
        assertEquals("echo", result.path("tools").path(0).path("name").asText());
        assertEquals(
            SupervisorSettings.fromConfig(ConfigFactory.load()).listCacheTtl().toMillis(),
            result.path("ttlMs").asLong(),
            "listCacheTtl by default");
      }
      assertEquals(1, upstreamLists(connection, "page-1"), "500 callers, one upstream call");
    }
  }

  @Test
  void aListChangedNotificationSendsTheNextListUpstream() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      RecordingListener listener = new RecordingListener();
      test.supervisor.register("client", listener);
      await(test.supervisor.acquire("client", "alpha"));
      FakeConnection connection = test.connector.nextConnection();
      assertEquals("v1", listOnce(test, connection, "client"));
      assertEquals("v1", toolName(await(list(test, "other"))), "cached");
      assertEquals(1, upstreamLists(connection, "c"));

      connection.push(new JsonRpcNotification(McpMethods.NOTIFICATION_PROMPTS_LIST_CHANGED, null));
      assertEquals(
          McpMethods.NOTIFICATION_PROMPTS_LIST_CHANGED, listener.nextNotification().method());
      assertEquals("v1", toolName(await(list(test, "other"))), "another kind changed");

      connection.push(new JsonRpcNotification(McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED, null));
      // the key actor heard of it before any context did: a client that lists in reply is served
      // afresh
      assertEquals(
          McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED, listener.nextNotification().method());
      CompletionStage<JsonRpcResponse> again = list(test, "client");
      JsonRpcRequest fetch = connection.nextRequest();
      connection.respond(fetch.id(), tools("v2"));
      assertEquals("v2", toolName(await(again)));
      assertEquals(2, upstreamLists(connection, "c"));
    }
  }

  @Test
  void aCallerThatGivesUpLeavesTheFetchToTheOthersAndTheUpstreamIsNotCancelled() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      await(test.supervisor.acquire("warm", "alpha"));
      FakeConnection connection = test.connector.nextConnection();
      CompletionStage<JsonRpcResponse> first = list(test, "first");
      JsonRpcRequest fetch = connection.nextRequest();
      CompletionStage<JsonRpcResponse> second = list(test, "second");
      CompletionStage<JsonRpcResponse> impatient =
          test.supervisor.request(
              "impatient", "alpha", McpMethods.TOOLS_LIST, cursor("c"), Duration.ofSeconds(1));

      first.toCompletableFuture().cancel(false);
      test.timePasses(Duration.ofSeconds(1));
      JsonRpcError timedOut = awaitError(impatient);
      assertEquals(JsonRpcErrorCodes.REQUEST_TIMEOUT, timedOut.code());
      assertEquals("request tools/list to alpha timed out after 1000 ms", timedOut.message());
      assertFalse(second.toCompletableFuture().isDone());

      connection.respond(fetch.id(), tools("echo"));
      assertEquals("echo", toolName(await(second)));
      assertTrue(
          connection.log.stream()
              .noneMatch(m -> McpMethods.NOTIFICATION_CANCELLED.equals(methodOf(m))),
          "the fetch served others: it was not cancelled upstream");
      assertEquals("echo", toolName(await(list(test, "third"))), "and it filled the cache");
      assertEquals(1, upstreamLists(connection, "c"));
    }
  }

  @Test
  void aLostConnectionDropsTheCache() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      await(test.supervisor.acquire("client", "alpha"));
      FakeConnection first = test.connector.nextConnection();
      assertEquals("v1", listOnce(test, first, "client"));
      first.die("exit code 1");
      test.awaitAssert(() -> assertEquals("restarting", test.onlySession().state()));
      CompletionStage<JsonRpcResponse> again = list(test, "client");
      test.timePasses(Duration.ofSeconds(1));
      FakeConnection second = test.connector.nextConnection();
      JsonRpcRequest fetch = second.nextRequest();
      second.respond(fetch.id(), tools("v2"));
      assertEquals("v2", toolName(await(again)));
    }
  }

  @Test
  void aContextIsolatedServersListsAreCachedForEachContextApartUntilItsLeaseEnds() {
    try (TestSupervisor test =
        TestSupervisor.start(TestSupervisor.server("alpha", Isolation.CONTEXT, 4, 32))) {
      await(test.supervisor.acquire("client", "alpha"));
      FakeConnection connection = test.connector.nextConnection();
      assertEquals("v1", listOnce(test, connection, "client"));
      JsonNode cached = await(list(test, "client")).result();
      assertEquals("v1", cached.path("tools").path(0).path("name").asText(), "from the cache");
      assertTrue(cached.has("ttlMs"), "with its lifetime");
      assertEquals(1, upstreamLists(connection, "c"));

      await(test.supervisor.acquire("other", "alpha"));
      FakeConnection others = test.connector.nextConnection();
      assertEquals("v1", listOnce(test, others, "other"), "its own list, on its own session");

      await(test.supervisor.release("client", "alpha"));
      await(test.supervisor.acquire("client", "alpha"));
      FakeConnection fresh = test.connector.nextConnection();
      assertEquals("v1", listOnce(test, fresh, "client"), "its pages went with its lease");
    }
  }

  @Test
  void aZeroListCacheTtlTurnsTheCacheOff() {
    try (TestSupervisor test =
        TestSupervisor.start(
            "mcp-supervisor.supervisor.listCacheTtl = 0", TestSupervisor.shared("alpha"))) {
      await(test.supervisor.acquire("client", "alpha"));
      FakeConnection connection = test.connector.nextConnection();
      assertEquals("v1", listOnce(test, connection, "client"));
      assertEquals("v2", listOnce(test, connection, "client"));
      assertEquals(2, upstreamLists(connection, "c"));
    }
  }

  @Test
  void waitingListsAreAnsweredAtShutdown() {
    try (TestSupervisor test = TestSupervisor.start(TestSupervisor.shared("alpha"))) {
      await(test.supervisor.acquire("client", "alpha"));
      FakeConnection connection = test.connector.nextConnection();
      CompletionStage<JsonRpcResponse> first = list(test, "client");
      connection.nextRequest();
      CompletionStage<JsonRpcResponse> second = list(test, "other");
      test.supervisor.shutdown();
      assertEquals(JsonRpcErrorCodes.SHUTTING_DOWN, awaitError(first).code());
      assertEquals(JsonRpcErrorCodes.SHUTTING_DOWN, awaitError(second).code());
    }
  }

  // --------------------------------------------------------------------------------------- helpers

  private static CompletionStage<JsonRpcResponse> list(TestSupervisor test, String context) {
    return test.supervisor.request(context, "alpha", McpMethods.TOOLS_LIST, cursor("c"), null);
  }

  /** A list that must go upstream: answered there with the next version's tool. */
  private static String listOnce(TestSupervisor test, FakeConnection connection, String context) {
    CompletionStage<JsonRpcResponse> answer = list(test, context);
    JsonRpcRequest fetch = connection.nextRequest();
    assertEquals(McpMethods.TOOLS_LIST, fetch.method());
    connection.respond(fetch.id(), tools("v" + (upstreamLists(connection, "c"))));
    return toolName(await(answer));
  }

  private static long upstreamLists(FakeConnection connection, String cursor) {
    return connection.log.stream()
        .filter(
            m ->
                m instanceof JsonRpcRequest request
                    && McpMethods.TOOLS_LIST.equals(request.method())
                    && request.params() != null
                    && cursor.equals(request.params().path("cursor").asText(null)))
        .count();
  }

  private static String toolName(JsonRpcResponse response) {
    return response.result().path("tools").path(0).path("name").asText();
  }

  private static ObjectNode tools(String name) {
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.putArray("tools").addObject().put("name", name);
    return result;
  }

  private static ObjectNode prompt() {
    return JsonRpcCodec.emptyObject().put("name", "greet");
  }

  private static void awaitLatch(CountDownLatch latch) {
    try {
      assertTrue(latch.await(10, TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
