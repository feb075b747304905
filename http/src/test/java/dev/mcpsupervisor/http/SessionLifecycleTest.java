package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.answer;
import static dev.mcpsupervisor.http.TestGateway.callTool;
import static dev.mcpsupervisor.http.TestGateway.json;
import static dev.mcpsupervisor.http.TestGateway.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.endpoint.AggregatedEndpoint;
import dev.mcpsupervisor.http.session.DownstreamSession;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/** Sessions on both endpoints: ids, versions, 400/404, DELETE, idle expiry, batches, 202s. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionLifecycleTest {

  private static final String FIXTURE = "/servers/fixture/mcp";
  private static final Pattern SESSION_ID = Pattern.compile("[A-Za-z0-9_-]{43}");

  private TestGateway gateway;

  @BeforeAll
  void start() {
    gateway =
        TestGateway.start(
            TestGateway.gateway(List.of(), List.of(), 1024 * 1024, Duration.ofSeconds(3)),
            TestGateway.stdioFixture("fixture"));
  }

  @AfterAll
  void stop() {
    gateway.close();
  }

  @Test
  void initializeIssuesAnUnguessableSessionIdAndTheUpstreamsIdentity() {
    HttpResponse<String> first =
        gateway.post(FIXTURE, null, TestGateway.initializeBody(ProtocolVersions.LATEST, "{}"));
    HttpResponse<String> second =
        gateway.post(FIXTURE, null, TestGateway.initializeBody(ProtocolVersions.LATEST, "{}"));
    String firstId = first.headers().firstValue("Mcp-Session-Id").orElseThrow();
    String secondId = second.headers().firstValue("Mcp-Session-Id").orElseThrow();
    assertTrue(SESSION_ID.matcher(firstId).matches(), firstId);
    assertNotEquals(firstId, secondId);
    JsonNode result = json(first.body()).path("result");
    assertEquals("fixture", result.path("serverInfo").path("name").asText());
    assertTrue(result.path("capabilities").has("tools"));
    assertEquals(ProtocolVersions.LATEST, result.path("protocolVersion").asText());
  }

  @Test
  void aggregatedInitializeAnswersTheGatewaysOwnIdentity() {
    HttpResponse<String> response =
        gateway.post("/mcp", null, TestGateway.initializeBody(ProtocolVersions.LATEST, "{}"));
    JsonNode result = json(response.body()).path("result");
    assertEquals(AggregatedEndpoint.SERVER_NAME, result.path("serverInfo").path("name").asText());
    assertTrue(result.path("capabilities").path("resources").path("subscribe").asBoolean());
  }

  @ParameterizedTest
  @ValueSource(strings = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"})
  void everySupportedVersionIsNegotiatedAsAsked(String version) {
    for (String path : List.of(FIXTURE, "/mcp")) {
      HttpResponse<String> response =
          gateway.post(path, null, TestGateway.initializeBody(version, "{}"));
      assertEquals(200, response.statusCode(), response.body());
      assertEquals(version, json(response.body()).path("result").path("protocolVersion").asText());
      String sessionId = response.headers().firstValue("Mcp-Session-Id").orElseThrow();
      HttpResponse<String> ping =
          gateway.post(path, sessionId, request(2, "ping", "{}"), "MCP-Protocol-Version", version);
      assertEquals(200, ping.statusCode(), ping.body());
    }
  }

  @Test
  void anUnknownVersionIsAnsweredWithTheLatest() {
    HttpResponse<String> response =
        gateway.post(FIXTURE, null, TestGateway.initializeBody("1999-01-01", "{}"));
    assertEquals(
        ProtocolVersions.LATEST,
        json(response.body()).path("result").path("protocolVersion").asText());
  }

  @Test
  void aRequestWithoutSessionIdGets400() {
    HttpResponse<String> response = gateway.post(FIXTURE, null, request(2, "tools/list", "{}"));
    assertEquals(400, response.statusCode());
    JsonNode error = json(response.body());
    assertEquals(JsonRpcErrorCodes.INVALID_REQUEST, error.path("error").path("code").asInt());
    assertTrue(error.path("error").path("message").asText().contains("Mcp-Session-Id"));
    assertTrue(error.path("id").isNull());
  }

  @Test
  void anUnknownSessionIdGets404() {
    HttpResponse<String> response =
        gateway.post(FIXTURE, "no-such-session", request(2, "tools/list", "{}"));
    assertEquals(404, response.statusCode());
    assertEquals(
        JsonRpcErrorCodes.INVALID_REQUEST,
        json(response.body()).path("error").path("code").asInt());
    assertEquals(
        404,
        gateway.get(FIXTURE, "Accept", "text/event-stream", "Mcp-Session-Id", "nope").statusCode());
    assertEquals(404, gateway.delete(FIXTURE, "nope").statusCode());
  }

  @Test
  void aSessionIsUnknownOnAnotherEndpoint() {
    String sessionId = gateway.initialize(FIXTURE);
    assertEquals(404, gateway.post("/mcp", sessionId, request(2, "ping", "{}")).statusCode());
  }

  @Test
  void deleteEndsTheSessionAndReleasesItsLeases() {
    String sessionId = gateway.initialize(FIXTURE);
    assertEquals(
        200,
        gateway.post(FIXTURE, sessionId, callTool(2, "echo", "{\"message\":\"x\"}")).statusCode());
    assertTrue(leaseHolders().contains(sessionId), "initialize took a lease");

    HttpResponse<String> deleted = gateway.delete(FIXTURE, sessionId);

    assertEquals(200, deleted.statusCode(), deleted.body());
    assertFalse(leaseHolders().contains(sessionId), "DELETE released the lease before answering");
    assertEquals(404, gateway.post(FIXTURE, sessionId, request(3, "ping", "{}")).statusCode());
    assertEquals(404, gateway.delete(FIXTURE, sessionId).statusCode());
  }

  @Test
  void aSessionLogsUnderItsClassNameNotItsBehavioursLambdaAndItsDeleteAtDebug() {
    Logger logger = (Logger) LoggerFactory.getLogger("dev.mcpsupervisor.http");
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    Level level = logger.getLevel();
    logger.setLevel(Level.DEBUG);
    logger.addAppender(lines);
    try {
      String sessionId = gateway.initialize(FIXTURE);
      assertEquals(200, gateway.delete(FIXTURE, sessionId).statusCode());
      List<String> loggers =
          List.copyOf(lines.list).stream()
              .filter(line -> line.getMessage().startsWith("session {} on {} ended"))
              .filter(line -> line.getFormattedMessage().contains(SessionIds.redact(sessionId)))
              .map(line -> line.getLoggerName() + " " + line.getLevel())
              .toList();
      // a client's DELETE is its own doing, answered 200: one line per session at INFO would not be
      assertEquals(List.of(DownstreamSession.class.getName() + " DEBUG"), loggers);
    } finally {
      logger.detachAppender(lines);
      logger.setLevel(level);
    }
  }

  @Test
  void anIdleSessionIsEndedAndReleased() throws InterruptedException {
    String sessionId = gateway.initialize(FIXTURE);
    assertTrue(leaseHolders().contains(sessionId));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (leaseHolders().contains(sessionId) && System.nanoTime() < deadline) {
      Thread.sleep(100); // polling an observable state with a bound, not synchronizing
    }
    assertFalse(leaseHolders().contains(sessionId), "the idle session's lease was released");
    assertEquals(404, gateway.post(FIXTURE, sessionId, request(2, "ping", "{}")).statusCode());
  }

  @Test
  void notificationsAndResponsesGet202WithoutBody() {
    String sessionId = gateway.initialize(FIXTURE);
    HttpResponse<String> notification =
        gateway.post(
            FIXTURE,
            sessionId,
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}");
    HttpResponse<String> response =
        gateway.post(FIXTURE, sessionId, "{\"jsonrpc\":\"2.0\",\"id\":\"gw-999\",\"result\":{}}");
    assertEquals(202, notification.statusCode());
    assertEquals("", notification.body());
    assertEquals(202, response.statusCode());
  }

  @Test
  void pingIsAnsweredByTheGateway() {
    String sessionId = gateway.initialize("/mcp");
    HttpResponse<String> ping = gateway.post("/mcp", sessionId, request("\"p\"", "ping", "{}"));
    assertEquals("application/json", ping.headers().firstValue("Content-Type").orElseThrow());
    JsonNode answer = json(ping.body());
    assertEquals("p", answer.path("id").asText());
    assertTrue(answer.path("result").isObject());
  }

  @Test
  void aBatchIsAnsweredAsABatch() {
    String sessionId = gateway.initialize(FIXTURE, ProtocolVersions.V2025_03_26, "{}");
    String batch =
        "["
            + request(1, "ping", "{}")
            + ","
            + callTool(2, "echo", "{\"message\":\"in a batch\"}")
            + ",{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}"
            + ",{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
            + ","
            + TestGateway.initializeBody(ProtocolVersions.V2025_03_26, "{}")
                .replace("\"id\":1", "\"id\":4")
            + "]";
    HttpResponse<String> response = gateway.post(FIXTURE, sessionId, batch);
    assertEquals(200, response.statusCode(), response.body());
    JsonNode answers = json(response.body());
    assertTrue(answers.isArray(), response.body());
    Map<Integer, JsonNode> byId = new HashMap<>();
    answers.forEach(answer -> byId.put(answer.path("id").asInt(), answer));
    assertEquals(4, answers.size(), response.body());
    assertTrue(byId.get(1).has("result"));
    assertEquals("in a batch", TestGateway.text(byId.get(2)));
    assertEquals(JsonRpcErrorCodes.INVALID_REQUEST, byId.get(3).path("error").path("code").asInt());
    assertEquals(JsonRpcErrorCodes.INVALID_REQUEST, byId.get(4).path("error").path("code").asInt());
  }

  @ParameterizedTest
  @ValueSource(strings = {"2025-06-18", "2025-11-25"})
  void aBatchIsRejectedFrom2025_06_18On(String version) {
    String sessionId = gateway.initialize(FIXTURE, version, "{}");
    HttpResponse<String> response =
        gateway.post(
            FIXTURE,
            sessionId,
            "[" + request(901, "ping", "{}") + "," + request(902, "ping", "{}") + "]");
    assertEquals(400, response.statusCode(), response.body());
    JsonNode error = json(response.body());
    assertEquals(JsonRpcErrorCodes.INVALID_REQUEST, error.path("error").path("code").asInt());
    assertTrue(error.path("error").path("message").asText().contains(version));
  }

  @Test
  void aBatchOfNotificationsGets202() {
    String sessionId = gateway.initialize(FIXTURE, ProtocolVersions.V2025_03_26, "{}");
    HttpResponse<String> response =
        gateway.post(
            FIXTURE,
            sessionId,
            "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}]");
    assertEquals(202, response.statusCode());
  }

  @Test
  void anUnsupportedProtocolVersionHeaderGets400BeforeAndAfterInitialize() {
    String sessionId = gateway.initialize(FIXTURE);
    for (String version : List.of("invalid-protocol-version", "2000-01-01", "2099-01-01")) {
      HttpResponse<String> before =
          gateway.post(
              FIXTURE, null, request(1, "tools/list", "{}"), "MCP-Protocol-Version", version);
      HttpResponse<String> after =
          gateway.post(
              FIXTURE, sessionId, request(1, "tools/list", "{}"), "MCP-Protocol-Version", version);
      assertEquals(400, before.statusCode(), version);
      assertEquals(400, after.statusCode(), version);
      assertTrue(json(after.body()).path("error").path("message").asText().contains(version));
    }
  }

  @Test
  void answersCarryTheClientsIdsUnchanged() {
    String sessionId = gateway.initialize(FIXTURE);
    JsonNode stringId =
        answer(
            gateway.post(FIXTURE, sessionId, callTool("\"abc\"", "echo", "{\"message\":\"s\"}")));
    JsonNode bigId =
        answer(
            gateway.post(
                FIXTURE,
                sessionId,
                callTool("12345678901234567890", "echo", "{\"message\":\"n\"}")));
    assertTrue(stringId.path("id").isTextual());
    assertEquals("abc", stringId.path("id").asText());
    assertEquals("12345678901234567890", bigId.path("id").toString());
  }

  private List<String> leaseHolders() {
    SupervisorSnapshot snapshot = gateway.snapshot();
    return snapshot.keys().stream().flatMap(key -> key.leases().keySet().stream()).toList();
  }
}
