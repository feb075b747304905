package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.app.runtime.Application;
import dev.mcpsupervisor.app.runtime.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The whole application in this JVM (supervisor, gateway, real connectors) on a free port, in front
 * of the fixture server as a stdio child process; MCP Java SDK clients and raw HTTP sessions
 * downstream.
 */
@Timeout(120)
class GatewayEndToEndTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static Application application;
  private static String mcpUrl;

  @BeforeAll
  static void startGatewayInFrontOfTheFixture() throws Exception {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode fixture = root.putObject("mcpServers").putObject("fixture");
    List<String> command = FixtureProcess.stdioCommand();
    fixture.put("command", command.get(0));
    command.subList(1, command.size()).forEach(fixture.putArray("args")::add);
    root.putObject("gateway").put("host", "127.0.0.1").put("port", 0);
    application =
        Application.start(
                ConfigLoader.parse(JSON.writeValueAsString(root), "end-to-end test config"))
            .toCompletableFuture()
            .get(60, TimeUnit.SECONDS);
    mcpUrl = application.mcpUrl();
  }

  @AfterAll
  static void stopAndCheckNoFixtureProcessIsLeft() throws Exception {
    List<ProcessHandle> fixtures = fixtureProcesses();
    application.stop(Duration.ofSeconds(5)).toCompletableFuture().get(60, TimeUnit.SECONDS);
    boolean exited = ChildProcesses.awaitExit(fixtures, Duration.ofSeconds(10));
    List<ProcessHandle> left = fixtureProcesses();
    ChildProcesses.kill(left);
    assertTrue(exited && left.isEmpty(), "fixture processes left after stop: " + left);
  }

  @Test
  void listeningUrlShowsTheBoundPort() {
    assertEquals("http://127.0.0.1:" + application.address().getPort() + "/mcp", mcpUrl);
    assertTrue(application.address().getPort() > 0);
  }

  @Test
  void aggregatedEndpointListsPrefixedToolsAndCallsEcho() {
    try (McpSyncClient client = GatewayClients.connect(mcpUrl, "/mcp")) {
      List<String> tools = client.listTools().tools().stream().map(Tool::name).toList();
      assertTrue(tools.contains("fixture__" + FixtureTools.ECHO), "tools: " + tools);
      assertEquals(
          "aggregated",
          GatewayClients.callText(
              client, "fixture__" + FixtureTools.ECHO, Map.of("message", "aggregated")));
    }
  }

  @Test
  void perServerEndpointKeepsToolNames() {
    try (McpSyncClient client = GatewayClients.connect(mcpUrl, "/servers/fixture/mcp")) {
      List<String> tools = client.listTools().tools().stream().map(Tool::name).toList();
      assertTrue(tools.contains(FixtureTools.ECHO), "tools: " + tools);
      assertEquals("5", GatewayClients.callText(client, FixtureTools.ADD, Map.of("a", 2, "b", 3)));
    }
  }

  @Test
  void progressReachesTheCallerThroughTheGateway() throws InterruptedException {
    ProgressRecorder progress = new ProgressRecorder();
    try (McpSyncClient client =
        GatewayClients.connect(
            mcpUrl, "/servers/fixture/mcp", spec -> spec.progressConsumer(progress))) {
      CallToolResult result =
          client.callTool(
              CallToolRequest.builder()
                  .name(FixtureTools.PROGRESS)
                  .arguments(Map.of("steps", 3))
                  .progressToken("e2e-token")
                  .build());
      assertEquals("done 3", ((TextContent) result.content().get(0)).text());
      assertEquals(List.of(1.0, 2.0, 3.0), progress.await("e2e-token", 3, Duration.ofSeconds(10)));
    }
  }

  @Test
  void twoHundredConcurrentSessionsEachGetTheirOwnAnswers() throws Exception {
    int sessions = 200;
    URI endpoint = URI.create(mcpUrl.replace("/mcp", "/servers/fixture/mcp"));
    ExecutorService pool = Executors.newFixedThreadPool(32);
    try {
      // its own executor: the pool's threads block in send() and must not be the ones completing
      // responses
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
      CountDownLatch start = new CountDownLatch(1);
      List<CompletableFuture<List<String>>> answers = new ArrayList<>();
      for (int i = 0; i < sessions; i++) {
        int session = i;
        answers.add(
            CompletableFuture.supplyAsync(
                () -> {
                  await(start);
                  McpHttpSession mcp = McpHttpSession.open(http, endpoint);
                  List<String> mine = new ArrayList<>();
                  for (int call = 0; call < 3; call++) {
                    String payload = "session-" + session + "-call-" + call + "-" + mcp.sessionId();
                    mine.add(
                        payload.equals(
                                mcp.callToolText(
                                    FixtureTools.ECHO,
                                    JSON.createObjectNode().put("message", payload)))
                            ? "ok"
                            : "wrong answer for " + payload);
                  }
                  mcp.delete();
                  return mine;
                },
                pool));
      }
      start.countDown();
      CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
      List<String> wrong =
          answers.stream()
              .flatMap(answer -> answer.join().stream())
              .filter(result -> !result.equals("ok"))
              .toList();
      assertEquals(List.of(), wrong);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void deleteEndsTheSessionAndReleasesItsLease() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    URI endpoint = URI.create(mcpUrl.replace("/mcp", "/servers/fixture/mcp"));
    McpHttpSession session = McpHttpSession.open(http, endpoint);
    assertEquals(
        "leased",
        session.callToolText(FixtureTools.ECHO, JSON.createObjectNode().put("message", "leased")));
    String shownId = session.sessionId().substring(0, 8);
    JsonNode withLease = admin(http);
    assertTrue(listsSession(withLease, shownId), "session missing from " + withLease);
    int leasesWith = fixtureLeases(withLease);
    assertTrue(leasesWith >= 1, withLease.toString());

    int status = session.delete();
    assertTrue(status == 200 || status == 202 || status == 204, "DELETE answered " + status);
    JsonNode after = admin(http);
    assertFalse(listsSession(after, shownId), "session still listed in " + after);
    assertEquals(leasesWith - 1, fixtureLeases(after), after.toString());
    assertEquals(
        404,
        McpHttpSession.post(
                http,
                endpoint,
                session.sessionId(),
                JSON.createObjectNode().put("jsonrpc", "2.0").put("id", 1).put("method", "ping"))
            .statusCode());
  }

  private static JsonNode admin(HttpClient http) throws Exception {
    URI uri = URI.create(mcpUrl.replace("/mcp", "/admin/sessions"));
    HttpResponse<String> response =
        http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, response.statusCode(), response.body());
    return JSON.readTree(response.body());
  }

  private static boolean listsSession(JsonNode admin, String idPrefix) {
    for (JsonNode session : admin.path("downstreamSessions")) {
      if (session.path("id").asText().startsWith(idPrefix)) {
        return true;
      }
    }
    return false;
  }

  private static int fixtureLeases(JsonNode admin) {
    int leases = 0;
    for (JsonNode key : admin.path("serverKeys")) {
      if (key.path("server").asText().equals("fixture")) {
        leases += key.path("leases").asInt();
      }
    }
    return leases;
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("start signal not given");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static List<ProcessHandle> fixtureProcesses() {
    return Descendants.running(ProcessHandle.current(), FixtureServer.class.getName());
  }
}
