package dev.mcpsupervisor.actors;

import static dev.mcpsupervisor.actors.TestSupervisor.await;
import static dev.mcpsupervisor.actors.TestSupervisor.awaitError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.FakeConnector.FakeConnection;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ToolFilter;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A server's tool filter holds on every path through the supervisor: a hidden tool is refused as
 * unknown before any session is asked, and every tools/list answer — fetched, cached or not
 * cacheable — leaves it out.
 */
class ToolFilteringTest {

  /** {@code tools = [echo, read]}, {@code disabledTools = [delete]}: write is not on the list. */
  private static final ToolFilter FILTER = new ToolFilter(Set.of("echo", "read"), Set.of("delete"));

  @Test
  void aHiddenToolIsRefusedAsUnknownAndNeverReachesTheUpstream() {
    try (TestSupervisor test = TestSupervisor.start(filtered("alpha", Isolation.SHARED))) {
      test.connector.answerCalls = ToolFilteringTest::echoName;
      JsonRpcError refused = awaitError(call(test, "client", "delete"));
      assertEquals(JsonRpcErrorCodes.INVALID_PARAMS, refused.code());
      assertEquals("Unknown tool: delete", refused.message());
      assertEquals(0, test.connector.connects.get(), "no session was opened for it");

      assertEquals("echo", RealFixture.text(await(call(test, "client", "echo"))));
      FakeConnection connection = test.connector.nextConnection();
      assertEquals("Unknown tool: write", awaitError(call(test, "client", "write")).message());
      assertEquals(List.of("echo"), calledTools(connection));
    }
  }

  @Test
  void everyListLeavesOutHiddenToolsWhetherFetchedCachedOrNotCacheable() {
    try (TestSupervisor test =
        TestSupervisor.start(
            filtered("alpha", Isolation.SHARED), filtered("beta", Isolation.CONTEXT))) {
      for (String tool : List.of("echo", "write", "read", "delete")) {
        test.connector.addTool(tool, true, false);
      }
      JsonNode fetched = await(list(test, "alpha", "one")).result();
      assertEquals(List.of("echo", "read"), names(fetched));
      JsonNode cached = await(list(test, "alpha", "two")).result();
      assertTrue(cached.has("ttlMs"), "served from the cache");
      assertEquals(List.of("echo", "read"), names(cached));
      JsonNode notCacheable = await(list(test, "beta", "one")).result();
      assertEquals(List.of("echo", "read"), names(notCacheable));
    }
  }

  @Test
  void hundredsOfRacingListsAndCallsNeverSeeOrReachAHiddenTool() throws Exception {
    try (TestSupervisor test = TestSupervisor.start(filtered("alpha", Isolation.SHARED))) {
      test.connector.addTool("echo", true, false);
      test.connector.addTool("delete", false, false);
      test.connector.answerCalls = ToolFilteringTest::echoName;
      int callers = 300;
      List<CompletionStage<JsonRpcResponse>> lists =
          Collections.synchronizedList(new ArrayList<>());
      List<CompletionStage<JsonRpcResponse>> hidden =
          Collections.synchronizedList(new ArrayList<>());
      List<CompletionStage<JsonRpcResponse>> exposed =
          Collections.synchronizedList(new ArrayList<>());
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(8);
      for (int i = 0; i < callers; i++) {
        String context = "ctx-" + i;
        pool.execute(
            () -> {
              awaitLatch(start);
              lists.add(list(test, "alpha", context));
              hidden.add(call(test, context, "delete"));
              exposed.add(call(test, context, "echo"));
            });
      }
      start.countDown();
      pool.shutdown();
      assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));

      for (CompletionStage<JsonRpcResponse> answer : lists) {
        assertEquals(List.of("echo"), names(await(answer).result()));
      }
      for (CompletionStage<JsonRpcResponse> answer : hidden) {
        assertEquals("Unknown tool: delete", awaitError(answer).message());
      }
      for (CompletionStage<JsonRpcResponse> answer : exposed) {
        assertNull(await(answer).error());
      }
      List<String> called = new ArrayList<>();
      test.connector.connections.forEach(connection -> called.addAll(calledTools(connection)));
      assertEquals(callers, called.size(), "every exposed call went upstream: " + called.size());
      assertEquals(Set.of("echo"), Set.copyOf(called), "and no hidden one");
    }
  }

  // --------------------------------------------------------------------------------------- helpers

  private static ServerConfig filtered(String name, Isolation isolation) {
    ServerConfig plain = TestSupervisor.server(name, isolation, 4, 1000);
    return plain.toBuilder().toolFilter(FILTER).build();
  }

  private static CompletionStage<JsonRpcResponse> call(
      TestSupervisor test, String context, String tool) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("name", tool);
    params.putObject("arguments");
    return test.supervisor.request(context, "alpha", McpMethods.TOOLS_CALL, params, null);
  }

  private static CompletionStage<JsonRpcResponse> list(
      TestSupervisor test, String server, String context) {
    return test.supervisor.request(context, server, McpMethods.TOOLS_LIST, null, null);
  }

  /** The upstream answers a call with the name of its tool. */
  private static JsonRpcResponse echoName(JsonRpcRequest request) {
    return JsonRpcResponse.success(
        request.id(), FakeConnector.text(request.params().path("name").asText()));
  }

  private static List<String> calledTools(FakeConnection connection) {
    List<String> tools = new ArrayList<>();
    synchronized (connection.log) {
      for (JsonRpcMessage message : connection.log) {
        if (message instanceof JsonRpcRequest request
            && McpMethods.TOOLS_CALL.equals(request.method())) {
          tools.add(request.params().path("name").asText());
        }
      }
    }
    return tools;
  }

  private static List<String> names(JsonNode result) {
    List<String> names = new ArrayList<>();
    result.path("tools").forEach(tool -> names.add(tool.path("name").asText()));
    Collections.sort(names); // the fake lists its tools in no particular order
    return names;
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
