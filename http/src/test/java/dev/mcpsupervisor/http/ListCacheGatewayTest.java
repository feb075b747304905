package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.answer;
import static dev.mcpsupervisor.http.TestGateway.callTool;
import static dev.mcpsupervisor.http.TestGateway.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lists through the gateway come from the supervisor's list cache: many clients listing cost one
 * upstream call (counted at the upstream), a list_changed drops the cached list before any client
 * hears of it, 2026-07-28 clients learn how long the list stays fresh, session-era clients see no
 * cache hints.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ListCacheGatewayTest {

  private static final int CALLERS = 500;
  private static final int BATCH = 50;
  private static final String V = ProtocolVersions.V2026_07_28;

  @Test
  void fiveHundredConcurrentListsOnBothEndpointsCostOneUpstreamCall() throws Exception {
    assertEquals(1, clientListsUpstream("", true), "with the cache");
  }

  @Test
  void withoutTheCacheEveryListGoesUpstream() throws Exception {
    assertEquals(CALLERS, clientListsUpstream("mcp-supervisor.supervisor.listCacheTtl = 0", false));
  }

  /**
   * {@link #CALLERS} stateless tools/list, half on {@code /servers/up/mcp}, half on {@code /mcp},
   * sent while the upstream holds its list answers; answers how many tools/list the upstream got
   * for them (each upstream session also lists once for itself, after its initialize).
   */
  private static int clientListsUpstream(String settings, boolean cached) throws Exception {
    try (CountingUpstream upstream = new CountingUpstream(List.of("first", "second", "third"));
        TestGateway gateway =
            TestGateway.start(
                settings,
                TestGateway.gateway(List.of(), List.of(), 1024 * 1024),
                TestGateway.streamableHttp("up", upstream.url()))) {
      CompletableFuture<Void> gate = new CompletableFuture<>();
      if (cached) {
        upstream.listGate = gate;
      }
      List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
      // in batches, so that the gateway's accept backlog never overflows: with the cache, every
      // caller so far waits at the key for the one list the upstream holds; without it, a batch
      // is answered before the next one connects
      for (int batch = 0; batch < CALLERS; batch += BATCH) {
        for (int i = batch; i < batch + BATCH; i++) {
          answers.add(
              gateway.postAsync(
                  i % 2 == 0 ? "/servers/up/mcp" : "/mcp",
                  null,
                  request(i, McpMethods.TOOLS_LIST, "{" + meta() + "}"),
                  "MCP-Protocol-Version",
                  V,
                  "Mcp-Method",
                  McpMethods.TOOLS_LIST));
        }
        if (cached) {
          awaitListWaiters(gateway, batch + BATCH);
        } else {
          for (int i = batch; i < batch + BATCH; i++) {
            answers.get(i).get(60, TimeUnit.SECONDS);
          }
        }
      }
      if (cached) {
        assertTrue(answers.stream().noneMatch(CompletableFuture::isDone), "all wait for the list");
      }
      gate.complete(null);
      for (int i = 0; i < CALLERS; i++) {
        HttpResponse<String> response = answers.get(i).get(60, TimeUnit.SECONDS);
        assertEquals(200, response.statusCode(), response.body());
        JsonNode result = answer(response).path("result");
        List<String> names = new ArrayList<>();
        result.path("tools").forEach(tool -> names.add(tool.path("name").asText()));
        assertEquals(
            i % 2 == 0
                ? List.of("first", "second", "third")
                : List.of("up__first", "up__second", "up__third"),
            names);
        long ttl = result.path("ttlMs").asLong(-1);
        assertTrue(cached ? ttl > 0 && ttl <= 10_000 : ttl == 0, "ttlMs " + ttl);
        assertEquals("public", result.path("cacheScope").asText());
      }
      return upstream.count(McpMethods.TOOLS_LIST) - upstream.count(McpMethods.INITIALIZE);
    }
  }

  @Test
  void aListChangedReachesNoClientBeforeTheCachedListIsGone() throws Exception {
    String fixture = "/servers/fixture/mcp";
    try (TestGateway gateway =
        TestGateway.start(
            "mcp-supervisor.supervisor.listCacheTtl = 5m",
            TestGateway.gateway(List.of(), List.of(), 1024 * 1024),
            TestGateway.stdioFixture("fixture"))) {
      String session = gateway.initialize(fixture);
      List<String> before = toolNames(gateway, fixture, session);
      assertEquals(
          before,
          toolNames(gateway, "/mcp", gateway.initialize("/mcp")).stream()
              .map(name -> name.substring("fixture__".length()))
              .toList());
      BlockingQueue<String> lines = new LinkedBlockingQueue<>();
      HttpResponse<Stream<String>> stream =
          gateway
              .http
              .sendAsync(
                  gateway
                      .request(fixture)
                      .header("Accept", "text/event-stream")
                      .header("Mcp-Session-Id", session)
                      .GET()
                      .build(),
                  HttpResponse.BodyHandlers.ofLines())
              .get(10, TimeUnit.SECONDS);
      Thread reader = new Thread(() -> stream.body().forEach(lines::add));
      reader.setDaemon(true);
      reader.start();

      gateway.post(fixture, session, callTool(2, FixtureTools.TRIGGER_LIST_CHANGED, "{}"));
      assertTrue(awaitLine(lines, "notifications/tools/list_changed"), "list_changed arrived");
      List<String> after = toolNames(gateway, fixture, session);
      assertEquals(
          before.contains(FixtureTools.DYNAMIC_TOOL),
          !after.contains(FixtureTools.DYNAMIC_TOOL),
          "the list asked after the notification is the new one: " + before + " → " + after);
      assertTrue(
          toolNames(gateway, "/mcp", gateway.initialize("/mcp"))
                  .contains("fixture__" + FixtureTools.DYNAMIC_TOOL)
              == after.contains(FixtureTools.DYNAMIC_TOOL),
          "the aggregated endpoint shares the server's cache");
      assertEquals(200, gateway.delete(fixture, session).statusCode());
    }
  }

  private static List<String> toolNames(TestGateway gateway, String path, String session) {
    JsonNode result =
        answer(gateway.post(path, session, request(9, McpMethods.TOOLS_LIST, "{}"))).path("result");
    assertFalse(
        result.has("ttlMs") || result.has("cacheScope"),
        "a session-era client gets no cache hints: " + result);
    List<String> names = new ArrayList<>();
    result.path("tools").forEach(tool -> names.add(tool.path("name").asText()));
    return names;
  }

  private static String meta() {
    return "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\""
        + V
        + "\",\"io.modelcontextprotocol/clientCapabilities\":{}}";
  }

  private static void awaitListWaiters(TestGateway gateway, int expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline && listWaiters(gateway) < expected) {
      Thread.sleep(20); // polling an observable state with a bound, not synchronizing
    }
    assertTrue(listWaiters(gateway) >= expected, listWaiters(gateway) + " callers wait");
  }

  private static int listWaiters(TestGateway gateway) {
    return gateway.snapshot().keys().stream().mapToInt(key -> key.listWaiters()).sum();
  }

  private static boolean awaitLine(BlockingQueue<String> lines, String text)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      String line = lines.poll(100, TimeUnit.MILLISECONDS);
      if (line != null && line.contains(text)) {
        return true;
      }
    }
    return false;
  }
}
