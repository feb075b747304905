package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.answer;
import static dev.mcpsupervisor.http.TestGateway.messages;
import static dev.mcpsupervisor.http.TestGateway.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.FixtureHttpServer;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.http.endpoint.SingleServerEndpoint;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.LoggingLevel;
import io.modelcontextprotocol.spec.McpSchema.LoggingMessageNotification;
import io.modelcontextprotocol.spec.McpSchema.ProgressNotification;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every client era against every kind of upstream, through one gateway on real HTTP: clients of
 * 2025-06-18, 2025-11-25 (the MCP Java SDK's client, pinned to that version) and 2026-07-28 (raw
 * stateless requests) × the fixture as a session-era stdio server, a session-era Streamable HTTP
 * server, a 2026-07-28 HTTP server and a 2026-07-28-only stdio server ({@code --stdio-2026}, its
 * era found out by {@code protocol: auto}). In each cell a tool call, progress, logging, sampling,
 * elicitation and a tool list change each reach the client in its own era: a 2025 client gets
 * server requests on its session and sets its log level with logging/setLevel; a 2026 client
 * answers input_required rounds by retrying, names its log level in {@code _meta} and hears list
 * changes on a subscriptions/listen stream.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EraMatrixTest {

  /** The upstreams, by server name: how each is served. */
  enum Upstream {
    STDIO_2025("s25"),
    HTTP_2025("h25"),
    HTTP_2026("h26"),
    STDIO_2026("s26"),
    /** The HTTP fixture serves both eras on one endpoint: {@code protocol: auto} finds out. */
    HTTP_BOTH("hboth");

    final String server;

    Upstream(String server) {
      this.server = server;
    }

    String path() {
      return SingleServerEndpoint.pathOf(server);
    }
  }

  private static final List<String> CLIENT_VERSIONS =
      List.of(
          ProtocolVersions.V2025_06_18, ProtocolVersions.V2025_11_25, ProtocolVersions.V2026_07_28);

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final AtomicInteger ids = new AtomicInteger(100);
  private FixtureHttpServer http2025;
  private FixtureHttpServer http2026;
  private FixtureHttpServer httpBoth;
  private TestGateway gateway;

  @BeforeAll
  void start() {
    http2025 = FixtureServer.startHttp(0);
    http2026 = FixtureServer.startHttp(0);
    httpBoth = FixtureServer.startHttp(0);
    List<String> stdio2026 = FixtureProcess.command("--stdio-2026");
    gateway =
        TestGateway.start(
            TestGateway.gateway(List.of(), List.of(), 1024 * 1024, Duration.ofSeconds(30)),
            TestGateway.stdioFixture(Upstream.STDIO_2025.server),
            TestGateway.server(
                Upstream.HTTP_2025.server,
                new ServerSpec.StreamableHttp(
                    URI.create(http2025.url()), Map.of(), UpstreamProtocol.SESSION)),
            TestGateway.server(
                Upstream.HTTP_2026.server,
                new ServerSpec.StreamableHttp(
                    URI.create(http2026.url()), Map.of(), UpstreamProtocol.STATELESS)),
            TestGateway.server(
                Upstream.STDIO_2026.server,
                new ServerSpec.Stdio(
                    stdio2026.get(0),
                    stdio2026.subList(1, stdio2026.size()),
                    Map.of(),
                    null,
                    UpstreamProtocol.AUTO)),
            TestGateway.server(
                Upstream.HTTP_BOTH.server,
                new ServerSpec.StreamableHttp(
                    URI.create(httpBoth.url()), Map.of(), UpstreamProtocol.AUTO)));
  }

  @AfterAll
  void stop() {
    gateway.close();
    http2025.close();
    http2026.close();
    httpBoth.close();
  }

  static Stream<Arguments> cells() {
    List<Arguments> cells = new ArrayList<>();
    for (String version : CLIENT_VERSIONS) {
      for (Upstream upstream : Upstream.values()) {
        cells.add(Arguments.of(version, upstream));
      }
    }
    return cells.stream();
  }

  private static boolean isStateless(String version) {
    return ProtocolVersions.V2026_07_28.equals(version);
  }

  /**
   * A server of both eras serves each client in its own: a session-era client over an upstream
   * session (its key speaks the session era first), a 2026-07-28 client statelessly (the server's
   * own rounds, see {@link #inputRound}).
   */
  @org.junit.jupiter.api.Test
  void aServerOfBothErasServesEachClientInItsOwnEra() {
    try (SdkClient session = session(ProtocolVersions.V2025_11_25, Upstream.HTTP_BOTH)) {
      assertEquals("hi", call(session, "echo", Map.of("message", "hi")));
      HttpResponse<String> response =
          stateless("{}").callTool(Upstream.HTTP_BOTH.path(), id(), "echo", "{\"message\":\"hi\"}");
      assertEquals("hi", text(answer(response)), response.body());
      Map<String, Integer> sessionsByProtocol = new java.util.TreeMap<>();
      gateway.supervisor.snapshot().toCompletableFuture().join().keys().stream()
          .filter(key -> key.server().equals(Upstream.HTTP_BOTH.server))
          .forEach(key -> sessionsByProtocol.put(key.protocol(), key.sessions().size()));
      assertEquals(
          Map.of("auto", 1, "auto, session era first", 1),
          sessionsByProtocol,
          "one upstream session in each era");
    }
  }

  /**
   * A 2026-07-28 client that declared no elicitation, calling a tool that elicits on a 2026-07-28
   * upstream: the server sees the client's own capabilities and refuses by itself, and that
   * refusal, not one of the gateway's, reaches the client.
   */
  @ParameterizedTest(name = "{0} upstream")
  @org.junit.jupiter.params.provider.EnumSource(
      value = Upstream.class,
      names = {"HTTP_2026", "STDIO_2026", "HTTP_BOTH"})
  void theUpstreamsOwnRefusalOfAClientWithoutTheCapabilityReachesIt(Upstream upstream) {
    HttpResponse<String> refused =
        stateless("{}").callTool(upstream.path(), id(), FixtureTools.ELICIT, "{\"message\":\"q\"}");
    JsonNode error = answer(refused).path("error");
    assertEquals(-32021, error.path("code").asInt(), refused.body());
    assertEquals(
        "Missing required client capability: elicitation",
        error.path("message").asText(),
        "the fixture's own words: " + refused.body());
  }

  // ------------------------------------------------------------------------------------ the cells

  @ParameterizedTest(name = "{0} client, {1} upstream")
  @MethodSource("cells")
  void aToolCallIsAnsweredInTheClientsEra(String version, Upstream upstream) {
    if (isStateless(version)) {
      HttpResponse<String> response =
          stateless("{}").callTool(upstream.path(), id(), "echo", "{\"message\":\"hi\"}");
      assertEquals(200, response.statusCode(), response.body());
      JsonNode answer = answer(response);
      assertEquals("complete", answer.path("result").path("resultType").asText(), response.body());
      assertEquals("hi", text(answer));
      return;
    }
    try (SdkClient session = session(version, upstream)) {
      assertEquals(version, session.client.getCurrentInitializationResult().protocolVersion());
      assertEquals("hi", call(session, "echo", Map.of("message", "hi")));
    }
  }

  @ParameterizedTest(name = "{0} client, {1} upstream")
  @MethodSource("cells")
  void progressComesWithTheClientsTokenBeforeTheResult(String version, Upstream upstream)
      throws InterruptedException {
    if (isStateless(version)) {
      StatelessClient client = stateless("{}");
      String body =
          client.toolCall(
              id(), FixtureTools.PROGRESS, "{\"steps\":3}", "", ",\"progressToken\":\"tok\"");
      HttpResponse<String> response =
          client.send(upstream.path(), "tools/call", FixtureTools.PROGRESS, body);
      List<JsonNode> messages = messages(response);
      assertEquals(4, messages.size(), response.body());
      for (int step = 1; step <= 3; step++) {
        JsonNode progress = messages.get(step - 1);
        assertEquals("notifications/progress", progress.path("method").asText(), response.body());
        assertEquals("tok", progress.path("params").path("progressToken").asText());
        assertEquals(step, progress.path("params").path("progress").asInt());
      }
      assertEquals("done 3", text(messages.get(3)));
      return;
    }
    try (SdkClient session = session(version, upstream)) {
      CallToolResult result =
          session.client.callTool(
              CallToolRequest.builder()
                  .name(FixtureTools.PROGRESS)
                  .arguments(Map.of("steps", 3))
                  .progressToken("tok-" + version)
                  .build());
      assertEquals("done 3", ((TextContent) result.content().get(0)).text());
      // the SDK client hands each notification to its consumer on a thread of its own, so the
      // order they reach the queue in is the SDK's (the 2026 cells check the order on the wire)
      List<Double> steps = new ArrayList<>();
      for (int step = 1; step <= 3; step++) {
        ProgressNotification progress =
            session.progress.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(progress, "progress " + step);
        assertEquals("tok-" + version, progress.progressToken());
        steps.add(progress.progress());
      }
      steps.sort(null);
      assertEquals(List.of(1.0, 2.0, 3.0), steps);
    }
  }

  @ParameterizedTest(name = "{0} client, {1} upstream")
  @MethodSource("cells")
  void logsReachAClientOnlyAtTheLevelItAskedFor(String version, Upstream upstream)
      throws InterruptedException {
    if (isStateless(version)) {
      StatelessClient client = stateless("{}");
      assertEquals(List.of(), logsOf(client, upstream, "info", ""), "no logLevel: no logs");
      assertEquals(
          List.of(),
          logsOf(client, upstream, "info", ",\"io.modelcontextprotocol/logLevel\":\"warning\""),
          "below the level asked for");
      assertEquals(
          List.of("heard"),
          logsOf(client, upstream, "error", ",\"io.modelcontextprotocol/logLevel\":\"warning\""));
      return;
    }
    try (SdkClient session = session(version, upstream)) {
      session.client.setLoggingLevel(LoggingLevel.WARNING);
      assertEquals(
          "logged", call(session, FixtureTools.LOG, Map.of("level", "info", "message", "quiet")));
      assertEquals(
          "logged", call(session, FixtureTools.LOG, Map.of("level", "error", "message", "heard")));
      LoggingMessageNotification log = session.logs.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      assertNotNull(log, "the error log");
      // an info log let through would have reached the client before the error log; the SDK hands
      // each to its consumer on a thread of its own, so one that overtook it is given a moment
      LoggingMessageNotification later = session.logs.poll(300, TimeUnit.MILLISECONDS);
      assertEquals("heard", String.valueOf(log.data()), "only the error log: " + later);
      assertEquals(LoggingLevel.ERROR, log.level());
      assertEquals(null, later, "nothing below warning");
    }
  }

  @ParameterizedTest(name = "{0} client, {1} upstream")
  @MethodSource("cells")
  void samplingIsAskedOfTheClientInItsEra(String version, Upstream upstream) {
    if (isStateless(version)) {
      String answer =
          "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"sampled: p\"},"
              + "\"model\":\"m\",\"stopReason\":\"endTurn\"}";
      assertEquals(
          "sampled: p",
          inputRound(
              upstream,
              "{\"sampling\":{}}",
              FixtureTools.SAMPLE,
              "{\"prompt\":\"p\"}",
              "sampling/createMessage",
              answer));
      return;
    }
    try (SdkClient session = session(version, upstream)) {
      assertEquals("sampled: p", call(session, FixtureTools.SAMPLE, Map.of("prompt", "p")));
    }
  }

  @ParameterizedTest(name = "{0} client, {1} upstream")
  @MethodSource("cells")
  void elicitationIsAskedOfTheClientInItsEra(String version, Upstream upstream) {
    if (isStateless(version)) {
      assertEquals(
          "accept:{\"answer\":\"round\"}",
          inputRound(
              upstream,
              "{\"elicitation\":{}}",
              FixtureTools.ELICIT,
              "{\"message\":\"q\"}",
              "elicitation/create",
              "{\"action\":\"accept\",\"content\":{\"answer\":\"round\"}}"));
      return;
    }
    try (SdkClient session = session(version, upstream)) {
      assertEquals(
          "accept:{\"answer\":\"yes\"}",
          call(session, FixtureTools.ELICIT, Map.of("message", "q")));
    }
  }

  @ParameterizedTest(name = "{0} client, {1} upstream")
  @MethodSource("cells")
  void aToolListChangeReachesTheClientAndTheNewList(String version, Upstream upstream)
      throws Exception {
    if (isStateless(version)) {
      StatelessClient client = stateless("{}");
      boolean before = listsDynamicTool(client, upstream);
      try (SseStream listening =
          client.listen(upstream.path(), id(), "{\"toolsListChanged\":true}")) {
        JsonNode ack = listening.next();
        assertEquals("notifications/subscriptions/acknowledged", ack.path("method").asText());
        assertTrue(
            ack.path("params").path("notifications").path("toolsListChanged").asBoolean(),
            ack.toString());
        assertEquals(
            "changed",
            text(
                answer(
                    client.callTool(
                        upstream.path(), id(), FixtureTools.TRIGGER_LIST_CHANGED, "{}"))));
        assertEquals("notifications/tools/list_changed", listening.next().path("method").asText());
      }
      assertEquals(!before, listsDynamicTool(client, upstream), "the list the client sees changed");
      return;
    }
    try (SdkClient session = session(version, upstream)) {
      boolean before =
          names(session.client.listTools().tools()).contains(FixtureTools.DYNAMIC_TOOL);
      assertEquals("changed", call(session, FixtureTools.TRIGGER_LIST_CHANGED, Map.of()));
      List<Tool> changed = session.toolLists.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      assertNotNull(changed, "notifications/tools/list_changed");
      assertEquals(!before, names(changed).contains(FixtureTools.DYNAMIC_TOOL));
    }
  }

  // ------------------------------------------------------------------------- 2026-07-28 clients

  private int id() {
    return ids.incrementAndGet();
  }

  private StatelessClient stateless(String capabilities) {
    return new StatelessClient(gateway, capabilities);
  }

  /** The messages a {@code log} call at {@code level} brings along, with {@code metaExtra}. */
  private List<String> logsOf(
      StatelessClient client, Upstream upstream, String level, String metaExtra) {
    String arguments = "{\"level\":\"" + level + "\",\"message\":\"heard\"}";
    HttpResponse<String> response =
        client.send(
            upstream.path(),
            "tools/call",
            FixtureTools.LOG,
            client.toolCall(id(), FixtureTools.LOG, arguments, "", metaExtra));
    List<JsonNode> messages = messages(response);
    assertEquals("logged", text(messages.get(messages.size() - 1)), response.body());
    List<String> logs = new ArrayList<>();
    messages.stream()
        .filter(message -> "notifications/message".equals(message.path("method").asText()))
        .forEach(message -> logs.add(message.path("params").path("data").asText()));
    return logs;
  }

  /**
   * Calls {@code tool}, which asks its client one thing ({@code method}): the call answers
   * input_required, the retry brings {@code answer} and gets the tool's text.
   */
  private String inputRound(
      Upstream upstream,
      String capabilities,
      String tool,
      String arguments,
      String method,
      String answer) {
    StatelessClient client = stateless(capabilities);
    HttpResponse<String> first = client.callTool(upstream.path(), id(), tool, arguments);
    JsonNode round = answer(first).path("result");
    assertEquals("input_required", round.path("resultType").asText(), first.body());
    Iterator<String> keys = round.path("inputRequests").fieldNames();
    String key = keys.next();
    assertFalse(keys.hasNext(), "one request: " + first.body());
    assertEquals(method, round.path("inputRequests").path(key).path("method").asText());
    if (upstream == Upstream.HTTP_2026
        || upstream == Upstream.STDIO_2026
        || upstream == Upstream.HTTP_BOTH) {
      // the fixture's own key for an input it names none for: it reaches the client unchanged
      assertEquals(
          method + "#1", key, "the server's key, not one of the gateway's: " + first.body());
    }
    int retryId = id();
    HttpResponse<String> retry =
        client.callTool(
            upstream.path(),
            retryId,
            tool,
            arguments,
            ",\"inputResponses\":{\""
                + key
                + "\":"
                + answer
                + "},\"requestState\":\""
                + round.path("requestState").asText()
                + "\"");
    JsonNode done = answer(retry);
    assertEquals(retryId, done.path("id").asInt(), retry.body());
    assertEquals("complete", done.path("result").path("resultType").asText(), retry.body());
    return text(done);
  }

  private boolean listsDynamicTool(StatelessClient client, Upstream upstream) {
    HttpResponse<String> response =
        client.send(
            upstream.path(),
            "tools/list",
            null,
            TestGateway.request(id(), "tools/list", "{" + StatelessClient.meta("{}", "") + "}"));
    List<String> names = new ArrayList<>();
    answer(response)
        .path("result")
        .path("tools")
        .forEach(tool -> names.add(tool.path("name").asText()));
    assertTrue(names.contains("echo"), response.body());
    return names.contains(FixtureTools.DYNAMIC_TOOL);
  }

  // ------------------------------------------------------------------------------- 2025 clients

  /** Calls a tool and answers its first text. */
  private static String call(SdkClient session, String tool, Map<String, Object> arguments) {
    CallToolResult result =
        session.client.callTool(CallToolRequest.builder().name(tool).arguments(arguments).build());
    return ((TextContent) result.content().get(0)).text();
  }

  private static List<String> names(List<Tool> tools) {
    return tools.stream().map(Tool::name).toList();
  }

  private SdkClient session(String version, Upstream upstream) {
    return new SdkClient(gateway.base, upstream.path(), List.of(version));
  }
}
