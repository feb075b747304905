package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.callTool;
import static dev.mcpsupervisor.http.TestGateway.messages;
import static dev.mcpsupervisor.http.TestGateway.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.LoggingLevel;
import io.modelcontextprotocol.spec.McpSchema.LoggingMessageNotification;
import io.modelcontextprotocol.spec.McpSchema.ProgressNotification;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * What servers send clients, through the gateway: progress and logging on the request's SSE stream,
 * sampling and elicitation round trips with an SDK client, list_changed on the GET stream, and
 * cancellation the other way.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ServerMessagesTest {

  private static final String FIXTURE = "/servers/fixture/mcp";

  private TestGateway gateway;

  @BeforeAll
  void start() {
    gateway =
        TestGateway.start(
            "mcp-supervisor.http.sseKeepAlive = 300ms",
            TestGateway.gateway(List.of(), List.of(), 1024 * 1024),
            TestGateway.stdioFixture("fixture"));
  }

  @AfterAll
  void stop() {
    gateway.close();
  }

  @Test
  void progressArrivesOnTheRequestsStreamWithTheCallersToken() {
    String session = gateway.initialize(FIXTURE);
    HttpResponse<String> response =
        gateway.post(
            FIXTURE,
            session,
            request(
                9,
                "tools/call",
                "{\"name\":\"progress\",\"arguments\":{\"steps\":3},\"_meta\":{\"progressToken\":\"mine-42\"}}"));
    assertEquals("text/event-stream", response.headers().firstValue("Content-Type").orElseThrow());
    List<JsonNode> messages = messages(response);
    List<JsonNode> progress =
        messages.stream()
            .filter(message -> "notifications/progress".equals(message.path("method").asText()))
            .toList();
    assertEquals(3, progress.size(), messages.toString());
    progress.forEach(
        message -> assertEquals("mine-42", message.path("params").path("progressToken").asText()));
    assertEquals("done 3", TestGateway.text(messages.get(messages.size() - 1)));
  }

  @Test
  void everyLogMessageArrivesBeforeItsAnswer() {
    String session = gateway.initialize(FIXTURE);
    for (int i = 0; i < 40; i++) {
      HttpResponse<String> response =
          gateway.post(
              FIXTURE,
              session,
              callTool(i, "log", "{\"level\":\"error\",\"message\":\"m" + i + "\"}"));
      List<JsonNode> messages = messages(response);
      assertEquals(2, messages.size(), "call " + i + ": " + response.body());
      assertEquals("m" + i, messages.get(0).path("params").path("data").asText());
      assertEquals("logged", TestGateway.text(messages.get(1)));
    }
  }

  @Test
  void progressReachesAnSdkClient() throws InterruptedException {
    try (SdkClient sdk = new SdkClient(gateway.base, "/mcp")) {
      CallToolResult result =
          sdk.client.callTool(
              CallToolRequest.builder()
                  .name("fixture__" + FixtureTools.PROGRESS)
                  .arguments(Map.of("steps", 2))
                  .progressToken("sdk-token")
                  .build());
      assertEquals("done 2", ((TextContent) result.content().get(0)).text());
      ProgressNotification first = sdk.progress.poll(10, TimeUnit.SECONDS);
      assertNotNull(first);
      assertEquals("sdk-token", first.progressToken());
    }
  }

  @Test
  void samplingRoundTripsThroughTheGateway() {
    for (String endpoint : List.of(FIXTURE, "/mcp")) {
      try (SdkClient sdk = new SdkClient(gateway.base, endpoint)) {
        String tool = endpoint.equals("/mcp") ? "fixture__sample" : "sample";
        CallToolResult result =
            sdk.client.callTool(
                CallToolRequest.builder()
                    .name(tool)
                    .arguments(Map.of("prompt", "hi there"))
                    .build());
        assertEquals("sampled: hi there", ((TextContent) result.content().get(0)).text(), endpoint);
      }
    }
  }

  @Test
  void elicitationRoundTripsThroughTheGateway() {
    try (SdkClient sdk = new SdkClient(gateway.base, FIXTURE)) {
      CallToolResult result =
          sdk.client.callTool(
              CallToolRequest.builder().name("elicit").arguments(Map.of("message", "ok?")).build());
      assertEquals("accept:{\"answer\":\"yes\"}", ((TextContent) result.content().get(0)).text());
    }
  }

  @Test
  void samplingForAClientWithoutTheCapabilityFailsClearly() {
    String session = gateway.initialize(FIXTURE);
    HttpResponse<String> response =
        gateway.post(FIXTURE, session, callTool(3, "sample", "{\"prompt\":\"x\"}"));
    JsonNode answer = TestGateway.answer(response);
    assertTrue(
        answer.toString().contains("did not declare the sampling capability"), answer.toString());
  }

  @Test
  void logLevelsAreKeptPerSessionAndNeverLeak() throws InterruptedException {
    try (SdkClient verbose = new SdkClient(gateway.base, FIXTURE);
        SdkClient quiet = new SdkClient(gateway.base, FIXTURE)) {
      verbose.client.setLoggingLevel(LoggingLevel.DEBUG);
      log(verbose, "debug", "verbose-debug");
      log(quiet, "debug", "quiet-debug");
      log(quiet, "warning", "quiet-warning");

      LoggingMessageNotification verboseLog = verbose.logs.poll(10, TimeUnit.SECONDS);
      assertNotNull(verboseLog);
      assertEquals("verbose-debug", String.valueOf(verboseLog.data()));
      LoggingMessageNotification quietLog = quiet.logs.poll(10, TimeUnit.SECONDS);
      assertNotNull(quietLog);
      assertEquals(
          "quiet-warning", String.valueOf(quietLog.data()), "the debug message was filtered out");
      assertNull(verbose.logs.poll(500, TimeUnit.MILLISECONDS), "no other session's logs");
      assertTrue(quiet.logs.isEmpty());
    }
  }

  @Test
  void theGetStreamCarriesListChangedAndKeepAlives() throws Exception {
    String session = gateway.initialize(FIXTURE);
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    CompletableFuture<HttpResponse<Stream<String>>> stream =
        gateway.http.sendAsync(
            gateway
                .request(FIXTURE)
                .header("Accept", "text/event-stream")
                .header("Mcp-Session-Id", session)
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofLines());
    HttpResponse<Stream<String>> response = stream.get(10, TimeUnit.SECONDS);
    assertEquals(200, response.statusCode());
    assertEquals("text/event-stream", response.headers().firstValue("Content-Type").orElseThrow());
    Thread reader = new Thread(() -> response.body().forEach(lines::add));
    reader.setDaemon(true);
    reader.start();
    try {
      assertTrue(awaitLine(lines, line -> line.startsWith(": keep-alive")), "keep-alive comment");

      HttpResponse<String> second =
          gateway.get(FIXTURE, "Accept", "text/event-stream", "Mcp-Session-Id", session);
      assertEquals(409, second.statusCode(), "one GET stream per session");

      gateway.post(FIXTURE, session, callTool(2, FixtureTools.TRIGGER_LIST_CHANGED, "{}"));
      assertTrue(
          awaitLine(lines, line -> line.contains("notifications/tools/list_changed")),
          "list_changed on the GET stream");
    } finally {
      assertEquals(200, gateway.delete(FIXTURE, session).statusCode());
      reader.join(10_000);
      assertFalse(reader.isAlive(), "DELETE ended the GET stream");
    }
  }

  @Test
  void aClientThatDropsItsGetStreamMayOpenANewOne() throws Exception {
    String session = gateway.initialize(FIXTURE);
    for (int attempt = 0; attempt < 3; attempt++) {
      HttpResponse<InputStream> stream = openGetStreamWhenFree(session);
      assertTrue(stream.body().read() >= 0, "the stream is live (a keep-alive arrives)");
      stream.body().close(); // the client goes away: the next attempt must get the slot back
    }
  }

  @Test
  void deleteCancelsWhatIsInFlight() throws Exception {
    String session = gateway.initialize(FIXTURE);
    CompletableFuture<HttpResponse<String>> sleeping =
        gateway.postAsync(FIXTURE, session, callTool(8, "sleep", "{\"ms\":20000}"));
    awaitInFlight(1);
    assertEquals(200, gateway.delete(FIXTURE, session).statusCode());
    JsonNode answer = TestGateway.answer(sleeping.get(10, TimeUnit.SECONDS));
    assertEquals(
        JsonRpcErrorCodes.REQUEST_CANCELLED,
        answer.path("error").path("code").asInt(),
        answer.toString());
    awaitInFlight(0);
  }

  /** GET until the gateway lets a stream open (409 while the previous one is still known to it). */
  private HttpResponse<InputStream> openGetStreamWhenFree(String session) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      HttpResponse<InputStream> stream =
          gateway.http.send(
              gateway
                  .request(FIXTURE)
                  .header("Accept", "text/event-stream")
                  .header("Mcp-Session-Id", session)
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofInputStream());
      if (stream.statusCode() == 200) {
        return stream;
      }
      stream.body().close();
      assertEquals(409, stream.statusCode());
      Thread.sleep(50); // polling an observable state with a bound, not synchronizing
    }
    throw new AssertionError("a dropped GET stream was never released");
  }

  @Test
  void cancellationFromTheClientReachesTheSupervisor() throws Exception {
    String session = gateway.initialize(FIXTURE);
    long start = System.nanoTime();
    CompletableFuture<HttpResponse<String>> sleeping =
        gateway.postAsync(FIXTURE, session, callTool(77, "sleep", "{\"ms\":20000}"));
    awaitInFlight(1);

    HttpResponse<String> cancelled =
        gateway.post(
            FIXTURE,
            session,
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":77,\"reason\":\"enough\"}}");

    assertEquals(202, cancelled.statusCode());
    HttpResponse<String> answer = sleeping.get(10, TimeUnit.SECONDS);
    assertTrue(answer.statusCode() < 300, answer.statusCode() + " " + answer.body());
    assertFalse(answer.body().contains("slept"), answer.body());
    assertTrue(
        System.nanoTime() - start < TimeUnit.SECONDS.toNanos(15),
        "answered long before the sleep ended");
    awaitInFlight(0);
  }

  private static void log(SdkClient sdk, String level, String message) {
    sdk.client.callTool(
        CallToolRequest.builder()
            .name(FixtureTools.LOG)
            .arguments(Map.of("level", level, "message", message))
            .build());
  }

  private void awaitInFlight(int expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    int inFlight = -1;
    while (System.nanoTime() < deadline) {
      inFlight = inFlight();
      if (inFlight == expected) {
        return;
      }
      Thread.sleep(50); // polling an observable state with a bound, not synchronizing
    }
    assertEquals(expected, inFlight, "requests in flight upstream");
  }

  private int inFlight() {
    SupervisorSnapshot snapshot = gateway.snapshot();
    return snapshot.keys().stream()
        .flatMap(key -> key.sessions().stream())
        .mapToInt(SupervisorSnapshot.SessionSnapshot::inFlight)
        .sum();
  }

  private static boolean awaitLine(
      BlockingQueue<String> lines, java.util.function.Predicate<String> wanted)
      throws InterruptedException {
    List<String> seen = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      String line = lines.poll(100, TimeUnit.MILLISECONDS);
      if (line != null) {
        seen.add(line);
        if (wanted.test(line)) {
          return true;
        }
      }
    }
    return false;
  }
}
