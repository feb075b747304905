package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.answer;
import static dev.mcpsupervisor.http.TestGateway.callTool;
import static dev.mcpsupervisor.http.TestGateway.json;
import static dev.mcpsupervisor.http.TestGateway.request;
import static dev.mcpsupervisor.http.TestGateway.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.fixture.FixtureTools;
import java.net.http.HttpResponse;
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
 * {@code /mcp} in front of two fixtures over stdio ("alpha" with its name as prefix, "beta" with
 * prefix "b") and a server that cannot start ("down").
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AggregationTest {

  private TestGateway gateway;
  private String session;

  @BeforeAll
  void start() {
    gateway =
        TestGateway.start(
            "mcp-supervisor.http.upstreamInitializeTimeout = 5s",
            TestGateway.gateway(List.of(), List.of(), 1024 * 1024),
            TestGateway.stdioFixture("alpha"),
            TestGateway.stdioFixture("beta", "b"),
            TestGateway.downServer("down"));
    session = gateway.initialize("/mcp");
  }

  @AfterAll
  void stop() {
    gateway.close();
  }

  @Test
  void initializeAnswersTheUnionOfTheLiveServersCapabilities() {
    HttpResponse<String> response =
        gateway.post("/mcp", null, TestGateway.initializeBody("2025-06-18", "{}"));
    JsonNode result = json(response.body()).path("result");
    JsonNode capabilities = result.path("capabilities");
    assertEquals("mcp-supervisor", result.path("serverInfo").path("name").asText());
    assertEquals("2025-06-18", result.path("protocolVersion").asText());
    for (String capability : List.of("tools", "prompts", "resources", "logging", "completions")) {
      assertTrue(capabilities.has(capability), capability + " in " + capabilities);
    }
    assertTrue(capabilities.path("resources").path("subscribe").asBoolean());
  }

  @Test
  void toolsListMergesEveryLiveServerUnderItsPrefix() {
    List<String> names = names(call("tools/list", "{}"), "tools");
    assertTrue(names.contains("alpha__" + FixtureTools.ECHO), names.toString());
    assertTrue(names.contains("b__" + FixtureTools.ECHO), names.toString());
    assertEquals(
        names.size() / 2, names.stream().filter(name -> name.startsWith("alpha__")).count());
    assertTrue(
        names.stream().allMatch(name -> name.startsWith("alpha__") || name.startsWith("b__")),
        names.toString());
  }

  @Test
  void toolsComeInServerOrderThenEachServersOwnOrderWhicheverAnswersFirst() throws Exception {
    String alpha = gateway.initialize("/servers/alpha/mcp");
    String beta = gateway.initialize("/servers/beta/mcp");
    List<String> expected = new ArrayList<>();
    names(
            answer(gateway.post("/servers/alpha/mcp", alpha, request(1, "tools/list", "{}"))),
            "tools")
        .forEach(name -> expected.add("alpha__" + name));
    names(answer(gateway.post("/servers/beta/mcp", beta, request(1, "tools/list", "{}"))), "tools")
        .forEach(name -> expected.add("b__" + name));
    List<CompletableFuture<HttpResponse<String>>> lists = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      lists.add(gateway.postAsync("/mcp", session, request(100 + i, "tools/list", "{}")));
    }
    for (CompletableFuture<HttpResponse<String>> list : lists) {
      assertEquals(expected, names(answer(list.get(30, TimeUnit.SECONDS)), "tools"));
    }
  }

  @Test
  void aggregatedListsHaveNoCursor() {
    assertFalse(call("tools/list", "{}").path("result").has("nextCursor"));
    assertFalse(call("prompts/list", "{}").path("result").has("nextCursor"));
  }

  @Test
  void toolsCallRoutesByPrefix() {
    String alphaPid = text(answer(gateway.post("/mcp", session, callTool(1, "alpha__pid", "{}"))));
    String betaPid = text(answer(gateway.post("/mcp", session, callTool(2, "b__pid", "{}"))));
    assertNotEquals(alphaPid, betaPid);
    assertEquals(List.of(Long.parseLong(alphaPid)), pidsOf("alpha"));
    assertEquals(List.of(Long.parseLong(betaPid)), pidsOf("beta"));
    assertEquals(
        "routed",
        text(
            answer(
                gateway.post(
                    "/mcp", session, callTool(3, "b__echo", "{\"message\":\"routed\"}")))));
  }

  @Test
  void aDownServerGetsAClearErrorAndDoesNotBreakTheOthers() {
    JsonNode down =
        answer(gateway.post("/mcp", session, callTool(1, "down__echo", "{\"message\":\"x\"}")));
    assertTrue(down.has("error"), down.toString());
    assertTrue(down.path("error").path("message").asText().contains("down"), down.toString());
    assertEquals(
        "still here",
        text(
            answer(
                gateway.post(
                    "/mcp", session, callTool(2, "alpha__echo", "{\"message\":\"still here\"}")))));
  }

  @Test
  void promptsAreMergedAndRouted() {
    List<String> names = names(call("prompts/list", "{}"), "prompts");
    assertTrue(
        names.contains("alpha__greeting") && names.contains("b__greeting"), names.toString());
    JsonNode prompt =
        call("prompts/get", "{\"name\":\"b__greeting\",\"arguments\":{\"name\":\"Ada\"}}");
    assertEquals(
        "Hello, Ada!",
        prompt.path("result").path("messages").path(0).path("content").path("text").asText());
  }

  @Test
  void completionsRouteByPromptPrefix() {
    JsonNode completion =
        call(
            "completion/complete",
            "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"alpha__greeting\"},\"argument\":{\"name\":\"name\",\"value\":\"A\"}}");
    assertEquals(
        "Alice",
        completion.path("result").path("completion").path("values").path(0).asText(),
        completion.toString());
  }

  @Test
  void resourcesKeepTheirUrisAndAreReadFromTheirServer() {
    JsonNode listed = call("resources/list", "{}");
    List<String> uris = new ArrayList<>();
    listed
        .path("result")
        .path("resources")
        .forEach(resource -> uris.add(resource.path("uri").asText()));
    assertTrue(uris.contains(FixtureTools.STATIC_RESOURCE_URI), uris.toString());
    JsonNode read =
        call("resources/read", "{\"uri\":\"" + FixtureTools.STATIC_RESOURCE_URI + "\"}");
    assertEquals(
        FixtureTools.STATIC_RESOURCE_TEXT,
        read.path("result").path("contents").path(0).path("text").asText());
    JsonNode templates = call("resources/templates/list", "{}");
    assertTrue(
        templates.toString().contains(FixtureTools.ITEM_RESOURCE_TEMPLATE), templates.toString());
    JsonNode item =
        call("resources/read", "{\"uri\":\"" + FixtureTools.ITEM_RESOURCE_PREFIX + "42\"}");
    assertEquals(
        "item 42",
        item.path("result").path("contents").path(0).path("text").asText(),
        item.toString());
  }

  @Test
  void aResourceNeverListedIsFoundOnItsServer() {
    String fresh = gateway.initialize("/mcp");
    JsonNode read =
        answer(
            gateway.post(
                "/mcp",
                fresh,
                request(
                    1,
                    "resources/read",
                    "{\"uri\":\"" + FixtureTools.ITEM_RESOURCE_PREFIX + "7\"}")));
    assertEquals(
        "item 7",
        read.path("result").path("contents").path(0).path("text").asText(),
        read.toString());
    JsonNode missing =
        answer(
            gateway.post("/mcp", fresh, request(2, "resources/read", "{\"uri\":\"nowhere://x\"}")));
    assertTrue(missing.has("error"), missing.toString());
  }

  @Test
  void subscriptionsAreAnsweredPerSession() {
    String uri = "{\"uri\":\"" + FixtureTools.STATIC_RESOURCE_URI + "\"}";
    assertTrue(call("resources/subscribe", uri).path("result").isObject());
    assertTrue(call("resources/unsubscribe", uri).path("result").isObject());
  }

  private JsonNode call(String method, String params) {
    HttpResponse<String> response = gateway.post("/mcp", session, request(7, method, params));
    assertEquals(200, response.statusCode(), response.body());
    return answer(response);
  }

  private static List<String> names(JsonNode listed, String field) {
    List<String> names = new ArrayList<>();
    listed.path("result").path(field).forEach(item -> names.add(item.path("name").asText()));
    return names;
  }

  private List<Long> pidsOf(String server) {
    SupervisorSnapshot snapshot = gateway.snapshot();
    return snapshot.keys().stream()
        .filter(key -> key.server().equals(server))
        .flatMap(key -> key.sessions().stream())
        .filter(upstream -> upstream.pid().isPresent())
        .map(upstream -> upstream.pid().getAsLong())
        .toList();
  }
}
