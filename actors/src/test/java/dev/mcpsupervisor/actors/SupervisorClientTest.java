package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.call.CallOptions;
import dev.mcpsupervisor.actors.call.CallOptions.ClientCapability;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.actors.call.ServerRequestHandler;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.tools.McpTool;
import dev.mcpsupervisor.protocol.tools.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The typed client over the real fixture server on stdio. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SupervisorClientTest {

  private static final String FIXTURE = "fixture";
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static final String PER_CONTEXT = "per-context";
  private static final String DECLARING = "declaring";

  private final SessionSupervisor supervisor =
      SessionSupervisor.start(
          RealFixture.config(
              RealFixture.stdio(FIXTURE, 23),
              RealFixture.contextIsolated(RealFixture.stdio(PER_CONTEXT, 24)),
              declaringSample(RealFixture.stdio(DECLARING, 25))));
  private final SupervisorClient client = SupervisorClient.of(supervisor);

  @AfterAll
  void stopEverything() {
    supervisor.close();
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void listToolsGivesTheServersToolsWithTheirSchemas() {
    List<McpTool> tools = await(client.listTools(FIXTURE));

    McpTool add =
        tools.stream()
            .filter(tool -> tool.name().equals(FixtureTools.ADD))
            .findFirst()
            .orElseThrow();
    assertTrue(add.inputSchema().path("properties").has("a"), add.inputSchema().toString());
    assertTrue(tools.stream().anyMatch(tool -> tool.name().equals(FixtureTools.ECHO)));
  }

  @Test
  void callToolAnswersTheToolsText() {
    ToolResult result =
        await(client.callTool("run-1", FIXTURE, FixtureTools.ADD, Map.of("a", 2, "b", 3)));

    assertFalse(result.isError());
    assertEquals("5", result.text());
  }

  @Test
  void aToolsOwnFailureIsAResultWithIsError() {
    ToolResult result = await(client.callTool("run-1", FIXTURE, FixtureTools.FAIL, Map.of()));

    assertTrue(result.isError());
    assertEquals(FixtureTools.FAIL_TEXT, result.text());
  }

  @Test
  void aJsonRpcErrorFailsTheStageWithItsCode() {
    CompletionException failure =
        assertThrows(
            CompletionException.class,
            () ->
                client
                    .callTool("run-1", "nowhere", FixtureTools.ECHO, Map.of())
                    .toCompletableFuture()
                    .join());

    SupervisorException error = assertInstanceOf(SupervisorException.class, failure.getCause());
    assertEquals(JsonRpcErrorCodes.UNKNOWN_SERVER, error.error().code());
  }

  @Test
  void theHandlerAnswersAnElicitationDuringTheCall() {
    List<String> asked = new CopyOnWriteArrayList<>();
    SupervisorClient answering =
        client.answering(
            new ServerRequestHandler() {
              @Override
              public Set<ClientCapability> capabilities() {
                return Set.of(ClientCapability.ELICITATION);
              }

              @Override
              public CompletionStage<JsonNode> answer(
                  String server, CallOutcome.InputRequest request) {
                asked.add(server + " " + request.method());
                ObjectNode result = JsonRpcCodec.emptyObject();
                result.put("action", "accept");
                result.putObject("content").put("answer", "yes");
                return CompletableFuture.completedFuture(result);
              }
            });

    ToolResult result =
        await(
            answering.callTool(
                "run-2", FIXTURE, FixtureTools.ELICIT, Map.of("message", "Proceed?")));

    assertEquals("accept:{\"answer\":\"yes\"}", result.text());
    assertEquals(List.of(FIXTURE + " " + McpMethods.ELICITATION_CREATE), asked);
  }

  @Test
  void interactiveToolsAreThoseDeclaredAndThoseACallShowedToSendServerRequests() {
    assertEquals(Set.of(FixtureTools.SAMPLE), await(client.interactiveTools(DECLARING)));

    SupervisorClient answering = client.answering(acceptingElicitations());
    await(answering.callTool("run-3", DECLARING, FixtureTools.ELICIT, Map.of("message", "Go?")));
    await(answering.callTool("run-3", DECLARING, FixtureTools.ADD, Map.of("a", 1, "b", 2)));

    assertEquals(
        List.of(FixtureTools.ELICIT, FixtureTools.SAMPLE).stream().sorted().toList(),
        List.copyOf(await(client.interactiveTools(DECLARING))),
        "the elicitation was learned, the plain add was not");
    assertEquals(Set.of(), await(client.interactiveTools("nowhere")));
  }

  @Test
  void withoutAHandlerASamplingRequestIsRefusedWithAClearError() {
    CompletionException failure =
        assertThrows(
            CompletionException.class,
            () ->
                client
                    .callTool("run-3", FIXTURE, FixtureTools.SAMPLE, Map.of("prompt", "2+2?"))
                    .toCompletableFuture()
                    .join());

    // the fixture's tool turns the refusal it got upstream into its own JSON-RPC error
    assertTrue(
        failure.getCause().getMessage().contains("did not declare the sampling capability"),
        failure.getCause().getMessage());
  }

  @Test
  void concurrentLeaselessCallsOnAContextIsolatedServerNeverEndEachOthersSession() {
    List<CompletableFuture<ToolResult>> calls = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      calls.add(
          client
              .callTool(
                  SupervisorClient.LEASELESS_CONTEXT,
                  PER_CONTEXT,
                  FixtureTools.SLEEP,
                  JsonRpcCodec.mapper().valueToTree(Map.of("ms", 300 + 200 * i)),
                  CallOptions.defaults().withoutLease())
              .toCompletableFuture());
    }

    for (CompletableFuture<ToolResult> call : calls) {
      assertTrue(await(call).text().startsWith("slept"), "every call answered, none lost");
    }
  }

  private static <T> T await(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("no answer within " + WAIT + ": " + e, e);
    }
  }

  private static ServerConfig declaringSample(ServerConfig server) {
    return new ServerConfig(
        server.name(),
        server.spec(),
        server.isolation(),
        server.maxSessions(),
        server.maxInflightPerSession(),
        server.requestTimeout(),
        server.idleTimeout(),
        server.toolPrefix(),
        null,
        null,
        Set.of(FixtureTools.SAMPLE));
  }

  private static ServerRequestHandler acceptingElicitations() {
    return new ServerRequestHandler() {
      @Override
      public Set<ClientCapability> capabilities() {
        return Set.of(ClientCapability.ELICITATION);
      }

      @Override
      public CompletionStage<JsonNode> answer(String server, CallOutcome.InputRequest request) {
        ObjectNode result = JsonRpcCodec.emptyObject();
        result.put("action", "accept");
        result.putObject("content").put("answer", "yes");
        return CompletableFuture.completedFuture(result);
      }
    };
  }
}
