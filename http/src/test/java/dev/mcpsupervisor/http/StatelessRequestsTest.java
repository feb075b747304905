package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.json;
import static dev.mcpsupervisor.http.TestGateway.messages;
import static dev.mcpsupervisor.http.TestGateway.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.http.session.Subscription;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * MCP 2026-07-28 clients (no initialize, no session, {@code _meta} on every request) served from a
 * session-era stdio server, on both endpoints, beside session-era clients.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StatelessRequestsTest {

  private static final String FIXTURE = "/servers/fixture/mcp";
  private static final String V = ProtocolVersions.V2026_07_28;

  private TestGateway gateway;

  @BeforeAll
  void start() {
    // a client that leaves a subscription stream is noticed at the next keep-alive
    gateway =
        TestGateway.start(
            "mcp-supervisor.http.sseKeepAlive = 200ms",
            TestGateway.gateway(List.of(), List.of(), 1024 * 1024, Duration.ofSeconds(30)),
            TestGateway.stdioFixture("fixture"));
  }

  @AfterAll
  void stop() {
    gateway.close();
  }

  private static String meta(String capabilities, String extra) {
    return StatelessClient.meta(capabilities, extra);
  }

  private HttpResponse<String> send(String path, String method, String name, String body) {
    return new StatelessClient(gateway, "{}").send(path, method, name, body);
  }

  private static String[] headers(String method, String name) {
    return StatelessClient.headers(method, name);
  }

  private String toolCall(Object id, String tool, String arguments, String metaExtra) {
    return new StatelessClient(gateway, "{}").toolCall(id, tool, arguments, "", metaExtra);
  }

  private HttpResponse<String> callTool(
      String path, Object id, String tool, String arguments, String metaExtra) {
    return send(path, "tools/call", tool, toolCall(id, tool, arguments, metaExtra));
  }

  private static JsonNode last(HttpResponse<String> response) {
    List<JsonNode> messages = messages(response);
    return messages.get(messages.size() - 1);
  }

  @Test
  void discoverAnnouncesEveryVersionTheCapabilitiesAndTheServersIdentity() {
    HttpResponse<String> response =
        send(
            FIXTURE,
            "server/discover",
            null,
            request("\"d1\"", "server/discover", "{" + meta("{}", "") + "}"));
    assertEquals(200, response.statusCode(), response.body());
    JsonNode result = json(response.body()).path("result");
    assertEquals("d1", json(response.body()).path("id").asText());
    assertEquals("complete", result.path("resultType").asText());
    assertEquals(V, result.path("supportedVersions").get(0).asText());
    assertTrue(result.path("capabilities").has("tools"), response.body());
    assertTrue(
        result.path("capabilities").path("tools").path("listChanged").asBoolean(),
        "subscriptions/listen carries list changes: " + response.body());
    assertTrue(
        result.path("capabilities").path("resources").path("subscribe").asBoolean(),
        "a listen stream's resourceSubscriptions are honored: " + response.body());
    assertEquals(
        "fixture",
        result.path("_meta").path("io.modelcontextprotocol/serverInfo").path("name").asText());
    assertTrue(result.path("ttlMs").asInt(-1) >= 0);
    assertEquals("public", result.path("cacheScope").asText());
    assertFalse(response.headers().firstValue("Mcp-Session-Id").isPresent(), "no session issued");
  }

  @Test
  void toolsAreListedAndCalledOnBothEndpointsWithResultTypeAndCacheHints() {
    HttpResponse<String> listed =
        send("/mcp", "tools/list", null, request(1, "tools/list", "{" + meta("{}", "") + "}"));
    JsonNode list = json(listed.body()).path("result");
    assertEquals("complete", list.path("resultType").asText(), listed.body());
    assertTrue(list.has("ttlMs") && list.has("cacheScope"), listed.body());
    assertTrue(listed.body().contains("fixture__echo"), listed.body());

    JsonNode routed = last(callTool(FIXTURE, 2, "echo", "{\"message\":\"one\"}", ""));
    assertEquals("one", TestGateway.text(routed), routed.toString());
    assertEquals("complete", routed.path("result").path("resultType").asText());
    assertFalse(routed.path("result").has("ttlMs"), "a tool result is not cacheable");
    JsonNode aggregated = last(callTool("/mcp", 3, "fixture__echo", "{\"message\":\"two\"}", ""));
    assertEquals("two", TestGateway.text(aggregated), aggregated.toString());
  }

  @Test
  void progressGoesOnTheRequestsOwnStreamAndLogsOnlyToARequestThatAskedForThem() {
    HttpResponse<String> progressed =
        callTool(FIXTURE, 4, "progress", "{\"steps\":3}", ",\"progressToken\":\"p-4\"");
    List<JsonNode> messages = messages(progressed);
    long progress =
        messages.stream()
            .filter(m -> "notifications/progress".equals(m.path("method").asText()))
            .filter(m -> "p-4".equals(m.path("params").path("progressToken").asText()))
            .count();
    assertEquals(3, progress, progressed.body());

    String log = "{\"level\":\"error\",\"message\":\"seen\"}";
    List<JsonNode> unasked = messages(callTool(FIXTURE, 5, "log", log, ""));
    assertTrue(
        unasked.stream().noneMatch(m -> "notifications/message".equals(m.path("method").asText())),
        "no logLevel, no logs: " + unasked);
    List<JsonNode> asked =
        messages(
            callTool(FIXTURE, 6, "log", log, ",\"io.modelcontextprotocol/logLevel\":\"warning\""));
    assertTrue(
        asked.stream().anyMatch(m -> "notifications/message".equals(m.path("method").asText())),
        "logLevel warning lets an error through: " + asked);
  }

  @Test
  void badRequestsGetTheRevisionsErrorsWithTheirIds() {
    HttpResponse<String> noMeta =
        send(FIXTURE, "tools/list", null, request(11, "tools/list", "{}"));
    // without _meta (but with a 2026 header) the request is refused, not taken for a session-era
    // one
    assertEquals(400, noMeta.statusCode(), noMeta.body());
    assertEquals(-32602, json(noMeta.body()).path("error").path("code").asInt());
    assertEquals(11, json(noMeta.body()).path("id").asInt());

    HttpResponse<String> wrongName =
        send(
            FIXTURE,
            "tools/call",
            "add",
            request(
                12, "tools/call", "{\"name\":\"echo\",\"arguments\":{}," + meta("{}", "") + "}"));
    assertEquals(400, wrongName.statusCode());
    assertEquals(-32020, json(wrongName.body()).path("error").path("code").asInt());

    HttpResponse<String> ping =
        send(FIXTURE, "ping", null, request(13, "ping", "{" + meta("{}", "") + "}"));
    assertEquals(404, ping.statusCode());
    assertEquals(-32601, json(ping.body()).path("error").path("code").asInt());
  }

  @Test
  void everyStatelessRequestReleasesWhatItLeasedAndSessionEraClientsAreUntouched() {
    String session = gateway.initialize(FIXTURE);
    int listedBefore = listedSessions();
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      String text = "t" + i;
      int id = 100 + i;
      boolean routed = i % 2 == 0;
      String tool = routed ? "echo" : "fixture__echo";
      calls.add(
          gateway.postAsync(
              routed ? FIXTURE : "/mcp",
              null,
              toolCall(id, tool, "{\"message\":\"" + text + "\"}", ""),
              headers("tools/call", tool)));
    }
    for (int i = 0; i < calls.size(); i++) {
      JsonNode answer = last(calls.get(i).join());
      assertEquals("t" + i, TestGateway.text(answer), "call " + i + " got another's answer");
      assertEquals(100 + i, answer.path("id").asInt());
    }
    HttpResponse<String> sessionEra =
        gateway.post(FIXTURE, session, TestGateway.callTool(1, "echo", "{\"message\":\"old\"}"));
    assertEquals("old", TestGateway.text(TestGateway.answer(sessionEra)));
    assertFalse(json(sessionEra.body()).path("result").has("resultType"), "2025 answers unchanged");
    awaitLeasedContexts(List.of(session));
    // each stateless request's session ended itself: the registry forgets it once it stopped
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    int listed;
    do {
      listed = listedSessions();
    } while (listed > listedBefore && System.nanoTime() < deadline);
    assertTrue(listed <= listedBefore, listed + " sessions listed, " + listedBefore + " before");
  }

  @Test
  void aStatelessRequestIsARequestNotASession() {
    // what the servers offer is learned once (under a lease released with that answer)
    assertEquals(
        "warm",
        TestGateway.text(
            last(callTool("/mcp", 499, "fixture__echo", "{\"message\":\"warm\"}", ""))));
    int listedBefore = listedSessions();
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      String tool = i % 2 == 0 ? "sleep" : "fixture__sleep";
      calls.add(
          gateway.postAsync(
              i % 2 == 0 ? FIXTURE : "/mcp",
              null,
              toolCall(500 + i, tool, "{\"ms\":1500}", ""),
              headers("tools/call", tool)));
    }
    // while every call is in flight upstream: no downstream session, no lease was made for them
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    int held;
    do {
      held =
          gateway.snapshot().keys().stream()
              .flatMap(key -> key.sessions().stream())
              .mapToInt(session -> session.inFlight() + session.stashed())
              .sum();
    } while (held < 100 && System.nanoTime() < deadline);
    assertEquals(100, held, "every call is upstream");
    assertEquals(listedBefore, listedSessions(), "a stateless request has no session");
    assertEquals(
        0,
        gateway.snapshot().keys().stream()
            .flatMap(key -> key.leases().keySet().stream())
            .filter(context -> context.startsWith("stateless-"))
            .count(),
        "its calls hold no lease");
    for (CompletableFuture<HttpResponse<String>> call : calls) {
      assertEquals(200, call.join().statusCode());
    }
  }

  private int listedSessions() {
    return json(gateway.get("/admin/sessions").body()).path("downstreamSessions").size();
  }

  @Test
  void subscriptionsListenAcknowledgesThenCarriesOnlyTheListChangesItAskedFor() throws Exception {
    SseStream tools = listen(7, "{\"toolsListChanged\":true,\"resourceSubscriptions\":[\"x:/y\"]}");
    SseStream prompts = listen(8, "{\"promptsListChanged\":true}");
    try {
      JsonNode ack = tools.next();
      assertEquals("notifications/subscriptions/acknowledged", ack.path("method").asText());
      assertEquals(
          json("{\"toolsListChanged\":true,\"resourceSubscriptions\":[\"x:/y\"]}"),
          ack.path("params").path("notifications"),
          "the list changes and the resource the upstream subscribed to");
      assertEquals(7, ack.path("params").path("_meta").path(Subscription.SUBSCRIPTION_ID).asInt());
      assertEquals(
          "notifications/subscriptions/acknowledged", prompts.next().path("method").asText());

      callTool(FIXTURE, 9, "trigger_list_changed", "{}", "");

      JsonNode changed = tools.next();
      assertEquals("notifications/tools/list_changed", changed.path("method").asText());
      assertEquals(
          7, changed.path("params").path("_meta").path(Subscription.SUBSCRIPTION_ID).asInt());
      assertEquals(null, prompts.poll(Duration.ofMillis(500)), "a prompts-only stream");
    } finally {
      tools.close();
      prompts.close();
    }
    awaitLeasedContexts(List.of());
  }

  private SseStream listen(Object id, String filter) {
    return new StatelessClient(gateway, "{}").listen(FIXTURE, id, filter);
  }

  private void awaitLeasedContexts(List<String> expected) {
    gateway.awaitLeasedContexts(expected);
  }
}
