package dev.mcpsupervisor.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.SupervisorClient;
import dev.mcpsupervisor.actors.base.SupervisionEvent;
import dev.mcpsupervisor.actors.call.CallOptions;
import dev.mcpsupervisor.actors.call.CallOptions.ClientCapability;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.actors.call.ServerRequestHandler;
import dev.mcpsupervisor.protocol.tools.McpTool;
import dev.mcpsupervisor.testkit.ScriptedServer.Era;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What a scripted server does besides faults: server requests, sequences, lists, start faults. */
@McpSupervisorTest
class ScriptedFeaturesTest {

  private static final String SERVER = "scripted";

  public static final class Interactive implements Scenario {
    @Override
    public void define(Script script) {
      script.tool("ask_model").sample("a haiku, please");
      script.tool("ask_user").elicit("proceed?");
      script.tool("turns").answers("one", "two").delay(Duration.ofMillis(50), "three");
      script.tool("grow").addTool("grown", "new here");
      script.tool("cut").answer("first").drop().answer("after the drop");
    }
  }

  public static final class FailsToStart implements Scenario {
    @Override
    public void define(Script script) {
      script.exitOnStart(3, 1);
      script.tool("echo").answer(args -> String.valueOf(args.get("message")));
    }
  }

  public static final class RefusesOnce implements Scenario {
    @Override
    public void define(Script script) {
      script.refuseInitialize(1);
      script.tool("echo").answer("up");
    }
  }

  /** Answers sampling with a fixed text and elicitation with accept:yes. */
  private static final ServerRequestHandler CLIENT =
      new ServerRequestHandler() {
        @Override
        public Set<ClientCapability> capabilities() {
          return Set.of(ClientCapability.SAMPLING, ClientCapability.ELICITATION);
        }

        @Override
        public CompletionStage<JsonNode> answer(String server, CallOutcome.InputRequest request) {
          ObjectNode answer = JsonNodeFactory.instance.objectNode();
          if (request.method().equals("sampling/createMessage")) {
            answer.put("role", "assistant");
            answer.put("model", "scripted-model");
            answer.putObject("content").put("type", "text").put("text", "old pond, a frog");
          } else {
            answer.put("action", "accept");
            answer.putObject("content").put("answer", "yes");
          }
          return CompletableFuture.completedFuture(answer);
        }
      };

  @ParameterizedTest
  @EnumSource(
      value = Era.class,
      names = {"SESSIONS", "STATELESS"})
  void serverRequestsAreAnsweredByTheClientAndRecorded(Era era, SupervisorTestKit kit) {
    ScriptedServer server = kit.stdio(SERVER, Interactive.class, era);
    SupervisorClient client = kit.client().answering(CLIENT);

    assertEquals("old pond, a frog", call(client, "ask_model"));
    assertEquals("accept:yes", call(client, "ask_user"));

    List<JsonNode> answers = server.clientAnswers();
    assertEquals(2, answers.size(), answers.toString());
    assertEquals("sampling/createMessage", answers.get(0).path("method").asText());
    assertEquals("scripted-model", answers.get(0).path("answer").path("model").asText());
    assertEquals("elicitation/create", answers.get(1).path("method").asText());
  }

  @ParameterizedTest
  @EnumSource(
      value = Era.class,
      names = {"SESSIONS", "STATELESS"})
  void aSequenceAnswersInTurnAndItsLastRepeats(Era era, SupervisorTestKit kit) {
    ScriptedServer server = kit.stdio(SERVER, Interactive.class, era);
    SupervisorClient client = kit.client();

    assertEquals(
        List.of("one", "two", "three", "three"),
        List.of(
            call(client, "turns"),
            call(client, "turns"),
            call(client, "turns"),
            call(client, "turns")));
    List<JsonNode> calls = server.requests("tools/call");
    assertEquals(4, calls.size());
    calls.forEach(call -> assertEquals("turns", call.path("params").path("name").asText()));
    if (era == Era.STATELESS) {
      assertTrue(
          calls.get(0).path("params").path("_meta").has("io.modelcontextprotocol/protocolVersion"),
          "a 2026-07-28 request carries its _meta: " + calls.get(0));
    }
  }

  @Test
  void anAddedToolIsListedAfterTheListChange(SupervisorTestKit kit) {
    kit.stdio(SERVER, Interactive.class);
    SupervisorClient client = kit.client();
    assertTrue(toolNames(client).stream().noneMatch("grown"::equals));

    call(client, "grow");

    awaitTool(client, "grown");
    assertEquals("new here", call(client, "grown"));
  }

  @Test
  void aDroppedConnectionFailsTheCallInFlightByItsDeadline(SupervisorTestKit kit) {
    kit.stdio(SERVER, Interactive.class);
    SupervisorClient client = kit.client();
    assertEquals("first", call(client, "cut"));

    // the supervisor reads a closed stdout of a living process as silence, not as a loss
    assertThrows(
        CompletionException.class,
        () ->
            client
                .callTool(
                    "test",
                    SERVER,
                    "cut",
                    JsonNodeFactory.instance.objectNode(),
                    CallOptions.defaults().withDeadline(Duration.ofSeconds(1)))
                .toCompletableFuture()
                .join());
  }

  @Test
  void failedStartsInARowOpenTheCircuitAndItClosesOnceOneStarts(SupervisorTestKit kit) {
    ScriptedServer server = kit.stdio(SERVER, FailsToStart.class);
    SupervisorClient client = kit.client();

    // each call starts the server anew, and each start fails, until the circuit opens
    for (int i = 0; i < 3; i++) {
      assertThrows(CompletionException.class, () -> call(client, "echo", "too early"));
    }
    kit.expectCircuitOpen(SERVER);

    assertEquals("at last", awaitAnswer(client, "echo", "at last"));
    kit.expectCircuitClosed(SERVER);
    assertEquals(4, server.starts().size(), "3 failed starts, then one: " + server.starts());
  }

  @Test
  void aRefusedInitializeIsAFailedAttemptAndTheNextOneServes(SupervisorTestKit kit) {
    ScriptedServer server = kit.stdio(SERVER, RefusesOnce.class);
    SupervisorClient client = kit.client();

    assertThrows(CompletionException.class, () -> call(client, "echo"));
    kit.expect(SERVER, SupervisionEvent.Kind.ATTEMPT_FAILED, SupervisorTestKit.EXPECT_TIMEOUT);
    assertEquals("up", call(client, "echo"));
    assertEquals(2, server.requests("initialize").size());
  }

  private static String call(SupervisorClient client, String tool) {
    return call(client, tool, null);
  }

  private static String call(SupervisorClient client, String tool, String message) {
    return client
        .callTool("test", SERVER, tool, message == null ? Map.of() : Map.of("message", message))
        .toCompletableFuture()
        .join()
        .text();
  }

  /** The first answer of a call that fails while the circuit is open (bounded). */
  private static String awaitAnswer(SupervisorClient client, String tool, String message) {
    long deadline = System.nanoTime() + SupervisorTestKit.EXPECT_TIMEOUT.toNanos();
    while (true) {
      try {
        return call(client, tool, message);
      } catch (CompletionException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        pause(); // calls fail fast while the circuit is open: ask again shortly
      }
    }
  }

  private static List<String> toolNames(SupervisorClient client) {
    return client.listTools(SERVER).toCompletableFuture().join().stream()
        .map(McpTool::name)
        .toList();
  }

  private static void awaitTool(SupervisorClient client, String name) {
    long deadline = System.nanoTime() + SupervisorTestKit.EXPECT_TIMEOUT.toNanos();
    while (!toolNames(client).contains(name)) {
      assertTrue(System.nanoTime() < deadline, name + " never listed");
      pause();
    }
  }

  private static void pause() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
