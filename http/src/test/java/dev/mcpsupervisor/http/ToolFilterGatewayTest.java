package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.answer;
import static dev.mcpsupervisor.http.TestGateway.callTool;
import static dev.mcpsupervisor.http.TestGateway.request;
import static dev.mcpsupervisor.http.TestGateway.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.ToolFilter;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server's {@code tools} / {@code disabledTools} through the gateway: on its own endpoint and on
 * the aggregated one (prefixed names), for session-era and 2026-07-28 clients alike, lists leave
 * hidden tools out and a call of one is refused as an unknown tool without reaching the upstream
 * (which counts the calls of each tool).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ToolFilterGatewayTest {

  private static final String SERVER = "/servers/up/mcp";
  private static final String AGGREGATED = "/mcp";

  /** {@code tools = [read, write]}, {@code disabledTools = [admin]}: delete is not listed. */
  private static final ToolFilter FILTER = new ToolFilter(Set.of("read", "write"), Set.of("admin"));

  private CountingUpstream upstream;
  private TestGateway gateway;

  @BeforeEach
  void start() {
    upstream = new CountingUpstream(List.of("read", "write", "delete", "admin"));
    ServerConfig plain = TestGateway.streamableHttp("up", upstream.url());
    List<String> stdio2026 = FixtureProcess.command("--stdio-2026");
    ServerConfig fixture =
        TestGateway.server(
            "fx",
            new ServerSpec.Stdio(
                stdio2026.get(0),
                stdio2026.subList(1, stdio2026.size()),
                Map.of(),
                null,
                UpstreamProtocol.STATELESS));
    gateway =
        TestGateway.start(
            filtered(plain, FILTER),
            filtered(fixture, new ToolFilter(null, Set.of(FixtureTools.CRASH))));
  }

  private static ServerConfig filtered(ServerConfig plain, ToolFilter filter) {
    return plain.toBuilder().toolFilter(filter).build();
  }

  @AfterEach
  void stop() {
    gateway.close();
    upstream.close();
  }

  @Test
  void sessionEraClientsSeeOnlyExposedToolsOnBothEndpoints() {
    String own = gateway.initialize(SERVER);
    String aggregated = gateway.initialize(AGGREGATED);
    assertEquals(List.of("read", "write"), toolNames(gateway.post(SERVER, own, list(2))));
    assertEquals(
        List.of("up__read", "up__write"),
        upTools(toolNames(gateway.post(AGGREGATED, aggregated, list(2)))));

    assertUnknownTool("delete", gateway.post(SERVER, own, callTool(3, "delete", "{}")));
    assertUnknownTool("admin", gateway.post(SERVER, own, callTool(4, "admin", "{}")));
    assertUnknownTool(
        "up__delete", gateway.post(AGGREGATED, aggregated, callTool(5, "up__delete", "{}")));
    assertEquals("read", text(answer(gateway.post(SERVER, own, callTool(6, "read", "{}")))));
    assertEquals(
        "write",
        text(answer(gateway.post(AGGREGATED, aggregated, callTool(7, "up__write", "{}")))));

    assertEquals(
        0, upstream.calls("delete") + upstream.calls("admin"), "no hidden tool was called");
    assertEquals(2, upstream.count(McpMethods.TOOLS_CALL), "the exposed ones were");
  }

  @Test
  void hundredsOfRacingStatelessListsAndCallsNeverSeeOrReachAHiddenTool() throws Exception {
    StatelessClient client = new StatelessClient(gateway, "{}");
    int callers = 200;
    int batch = 50;
    List<CompletableFuture<HttpResponse<String>>> lists = new ArrayList<>();
    List<CompletableFuture<HttpResponse<String>>> hidden = new ArrayList<>();
    List<CompletableFuture<HttpResponse<String>>> exposed = new ArrayList<>();
    // in batches, so that the gateway's accept backlog never overflows
    for (int from = 0; from < callers; from += batch) {
      List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
      for (int i = from; i < from + batch; i++) {
        boolean own = i % 2 == 0;
        String path = own ? SERVER : AGGREGATED;
        lists.add(
            gateway.postAsync(
                path,
                null,
                request(i, McpMethods.TOOLS_LIST, "{" + StatelessClient.meta("{}", "") + "}"),
                StatelessClient.headers(McpMethods.TOOLS_LIST, null)));
        hidden.add(client.callToolAsync(path, i, own ? "delete" : "up__delete", "{}", ""));
        exposed.add(client.callToolAsync(path, i, own ? "read" : "up__read", "{}", ""));
        sent.addAll(List.of(lists.get(i), hidden.get(i), exposed.get(i)));
      }
      CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }
    for (int i = 0; i < callers; i++) {
      boolean own = i % 2 == 0;
      assertEquals(
          own ? List.of("read", "write") : List.of("up__read", "up__write"),
          own ? toolNames(lists.get(i).get()) : upTools(toolNames(lists.get(i).get())));
      assertUnknownTool(own ? "delete" : "up__delete", hidden.get(i).get());
      assertEquals("read", text(answer(exposed.get(i).get())), exposed.get(i).get().body());
    }
    assertEquals(0, upstream.calls("delete"), "no hidden tool was called");
    assertEquals(callers, upstream.calls("read"), "every exposed call was");
  }

  /**
   * A 2026-07-28 upstream (the fixture over stdio) with {@code disabledTools = [crash]}: its crash
   * tool, which would halt the process, is neither listed nor run — the process serving the calls
   * before and after it is the same.
   */
  @Test
  void aHiddenToolOfAStatelessUpstreamIsNeitherListedNorRun() {
    String path = "/servers/fx/mcp";
    String session = gateway.initialize(path);
    List<String> listed = toolNames(gateway.post(path, session, list(2)));
    assertTrue(listed.contains(FixtureTools.PID), listed.toString());
    assertFalse(listed.contains(FixtureTools.CRASH), listed.toString());
    String pid = text(answer(gateway.post(path, session, callTool(3, FixtureTools.PID, "{}"))));

    assertUnknownTool(
        FixtureTools.CRASH, gateway.post(path, session, callTool(4, FixtureTools.CRASH, "{}")));
    assertUnknownTool(
        "fx__" + FixtureTools.CRASH,
        gateway.post(
            AGGREGATED,
            gateway.initialize(AGGREGATED),
            callTool(5, "fx__" + FixtureTools.CRASH, "{}")));

    assertEquals(
        pid, text(answer(gateway.post(path, session, callTool(6, FixtureTools.PID, "{}")))));
  }

  private static String list(int id) {
    return request(id, McpMethods.TOOLS_LIST, "{}");
  }

  private static void assertUnknownTool(String tool, HttpResponse<String> response) {
    JsonNode error = answer(response).path("error");
    assertEquals(JsonRpcErrorCodes.INVALID_PARAMS, error.path("code").asInt(), response.body());
    assertEquals("Unknown tool: " + tool, error.path("message").asText(), response.body());
  }

  /** The aggregated list's tools of server up; the fixture's are there too, without its crash. */
  private static List<String> upTools(List<String> aggregated) {
    assertTrue(aggregated.contains("fx__" + FixtureTools.PID), aggregated.toString());
    assertFalse(aggregated.contains("fx__" + FixtureTools.CRASH), aggregated.toString());
    return aggregated.stream().filter(name -> name.startsWith("up__")).toList();
  }

  private static List<String> toolNames(HttpResponse<String> response) {
    assertEquals(200, response.statusCode(), response.body());
    List<String> names = new ArrayList<>();
    answer(response).path("result").path("tools").forEach(t -> names.add(t.path("name").asText()));
    return names;
  }
}
