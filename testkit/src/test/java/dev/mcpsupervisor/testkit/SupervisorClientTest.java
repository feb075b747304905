package dev.mcpsupervisor.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.SupervisorClient;
import dev.mcpsupervisor.actors.SupervisorException;
import dev.mcpsupervisor.actors.call.CallOptions;
import dev.mcpsupervisor.actors.call.CallOptions.ClientCapability;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.actors.call.ServerRequestHandler;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
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
import org.junit.jupiter.api.Test;

/** The typed client ({@link SupervisorClient}) over scripted servers on stdio. */
@McpSupervisorTest
class SupervisorClientTest {

  private static final String SERVER = "scripted";
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String FAIL_TEXT = "the tool failed";

  /** The tools of every test here: arithmetic, a failure, server requests and slow answers. */
  public static final class Tools implements Scenario {
    @Override
    public void define(Script script) {
      Map<String, Object> number = Map.of("type", "number");
      script
          .tool("add")
          .inputSchema(Map.of("type", "object", "properties", Map.of("a", number, "b", number)))
          .answer(
              args ->
                  String.valueOf(
                      ((Number) args.get("a")).intValue() + ((Number) args.get("b")).intValue()));
      script.tool("fail").error(FAIL_TEXT);
      script.tool("ask_user").elicit("Proceed?");
      script.tool("ask_model").sample("2+2?");
      script
          .tool("sleep")
          .delay(Duration.ofMillis(300), "slept")
          .delay(Duration.ofMillis(500), "slept")
          .delay(Duration.ofMillis(700), "slept")
          .delay(Duration.ofMillis(900), "slept");
    }
  }

  @Test
  void listToolsGivesTheServersToolsWithTheirSchemas(SupervisorTestKit kit) {
    kit.stdio(SERVER, Tools.class);
    List<McpTool> tools = await(kit.client().listTools(SERVER));

    McpTool add =
        tools.stream().filter(tool -> tool.name().equals("add")).findFirst().orElseThrow();
    assertTrue(add.inputSchema().path("properties").has("a"), add.inputSchema().toString());
    assertTrue(tools.stream().anyMatch(tool -> tool.name().equals("fail")));
  }

  @Test
  void callToolAnswersTheToolsText(SupervisorTestKit kit) {
    kit.stdio(SERVER, Tools.class);
    ToolResult result =
        await(kit.client().callTool("run-1", SERVER, "add", Map.of("a", 2, "b", 3)));

    assertFalse(result.isError());
    assertEquals("5", result.text());
  }

  @Test
  void aToolsOwnFailureIsAResultWithIsError(SupervisorTestKit kit) {
    kit.stdio(SERVER, Tools.class);
    ToolResult result = await(kit.client().callTool("run-1", SERVER, "fail", Map.of()));

    assertTrue(result.isError());
    assertEquals(FAIL_TEXT, result.text());
  }

  @Test
  void aJsonRpcErrorFailsTheStageWithItsCode(SupervisorTestKit kit) {
    kit.stdio(SERVER, Tools.class);
    SupervisorClient client = kit.client();
    CompletionException failure =
        assertThrows(
            CompletionException.class,
            () ->
                client.callTool("run-1", "nowhere", "add", Map.of()).toCompletableFuture().join());

    SupervisorException error = assertInstanceOf(SupervisorException.class, failure.getCause());
    assertEquals(JsonRpcErrorCodes.UNKNOWN_SERVER, error.error().code());
  }

  @Test
  void theHandlerAnswersAnElicitationDuringTheCall(SupervisorTestKit kit) {
    kit.stdio(SERVER, Tools.class);
    List<String> asked = new CopyOnWriteArrayList<>();
    SupervisorClient answering =
        kit.client()
            .answering(
                new ServerRequestHandler() {
                  @Override
                  public Set<ClientCapability> capabilities() {
                    return Set.of(ClientCapability.ELICITATION);
                  }

                  @Override
                  public CompletionStage<JsonNode> answer(
                      String server, CallOutcome.InputRequest request) {
                    asked.add(server + " " + request.method());
                    return CompletableFuture.completedFuture(accepted());
                  }
                });

    ToolResult result = await(answering.callTool("run-2", SERVER, "ask_user", Map.of()));

    assertEquals("accept:yes", result.text());
    assertEquals(List.of(SERVER + " " + McpMethods.ELICITATION_CREATE), asked);
  }

  @Test
  void interactiveToolsAreThoseDeclaredAndThoseACallShowedToSendServerRequests(
      SupervisorTestKit kit) {
    kit.stdio(SERVER, Tools.class);
    kit.option(SERVER, "interactiveTools", List.of("ask_model"));
    SupervisorClient client = kit.client();
    assertEquals(Set.of("ask_model"), await(client.interactiveTools(SERVER)));

    SupervisorClient answering = client.answering(acceptingElicitations());
    await(answering.callTool("run-3", SERVER, "ask_user", Map.of()));
    await(answering.callTool("run-3", SERVER, "add", Map.of("a", 1, "b", 2)));

    assertEquals(
        List.of("ask_model", "ask_user"),
        List.copyOf(await(client.interactiveTools(SERVER))).stream().sorted().toList(),
        "the elicitation was learned, the plain add was not");
    assertEquals(Set.of(), await(client.interactiveTools("nowhere")));
  }

  @Test
  void withoutAHandlerASamplingRequestIsRefusedWithAClearError(SupervisorTestKit kit) {
    kit.stdio(SERVER, Tools.class);
    SupervisorClient client = kit.client();
    CompletionException failure =
        assertThrows(
            CompletionException.class,
            () ->
                client
                    .callTool("run-3", SERVER, "ask_model", Map.of())
                    .toCompletableFuture()
                    .join());

    // the scripted tool's sampling request is refused upstream, and the SDK fails the call with it
    assertTrue(
        failure.getCause().getMessage().contains("did not declare the sampling capability"),
        failure.getCause().getMessage());
  }

  @Test
  void concurrentLeaselessCallsOnAContextIsolatedServerNeverEndEachOthersSession(
      SupervisorTestKit kit) {
    kit.stdio(SERVER, Tools.class);
    kit.option(SERVER, "isolation", "context").option(SERVER, "maxSessions", 4);
    SupervisorClient client = kit.client();
    List<CompletableFuture<ToolResult>> calls = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      calls.add(
          client
              .callTool(
                  SupervisorClient.LEASELESS_CONTEXT,
                  SERVER,
                  "sleep",
                  JsonRpcCodec.mapper().valueToTree(Map.of()),
                  CallOptions.defaults().withoutLease())
              .toCompletableFuture());
    }

    for (CompletableFuture<ToolResult> call : calls) {
      assertEquals("slept", await(call).text(), "every call answered, none lost");
    }
  }

  private static ObjectNode accepted() {
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.put("action", "accept");
    result.putObject("content").put("answer", "yes");
    return result;
  }

  private static ServerRequestHandler acceptingElicitations() {
    return new ServerRequestHandler() {
      @Override
      public Set<ClientCapability> capabilities() {
        return Set.of(ClientCapability.ELICITATION);
      }

      @Override
      public CompletionStage<JsonNode> answer(String server, CallOutcome.InputRequest request) {
        return CompletableFuture.completedFuture(accepted());
      }
    };
  }

  private static <T> T await(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("no answer within " + WAIT + ": " + e, e);
    }
  }
}
