package dev.mcpsupervisor.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.call.CallOptions.ClientCapability;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.actors.call.ServerRequestHandler;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Which beans the auto-configuration makes, and the sampling/elicitation hook. */
class SupervisorAutoConfigurationTest {

  private static Path serversFile;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(SupervisorAutoConfiguration.class));

  @BeforeAll
  static void writeServersFile() throws IOException {
    List<String> fixture = FixtureProcess.stdioCommand();
    serversFile = Files.createTempFile("mcp-servers", ".json");
    Files.writeString(
        serversFile,
        JsonRpcCodec.mapper()
            .writeValueAsString(
                Map.of(
                    "mcpServers",
                    Map.of(
                        "fixture",
                        Map.of(
                            "command",
                            fixture.get(0),
                            "args",
                            fixture.subList(1, fixture.size()))))));
  }

  @AfterAll
  static void nothingOutlivesTheContexts() throws IOException {
    Files.deleteIfExists(serversFile);
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void withoutAServersFileThereIsNoSupervisor() {
    runner.run(context -> assertFalse(context.containsBean("sessionSupervisor")));
  }

  @Test
  void theOwnPropertyNamesTheFileAndEnabledFalseTurnsItOff() {
    runner
        .withPropertyValues("mcp-supervisor.servers-configuration=file:" + serversFile)
        .run(
            context ->
                assertEquals(
                    Set.of("fixture"),
                    context.getBean(SessionSupervisor.class).config().servers().keySet()));
    runner
        .withPropertyValues(
            "mcp-supervisor.servers-configuration=file:" + serversFile,
            "mcp-supervisor.enabled=false")
        .run(context -> assertFalse(context.containsBean("sessionSupervisor")));
  }

  @Test
  void aServerRequestHandlerBeanAnswersAnElicitationDuringAToolCall() {
    runner
        .withPropertyValues("mcp-supervisor.servers-configuration=file:" + serversFile)
        .withBean(ServerRequestHandler.class, AcceptingEverything::new)
        .run(
            context -> {
              String answer =
                  callback(context.getBean(SupervisorToolCallbackProvider.class), "fixture__elicit")
                      .call("{\"message\": \"Proceed?\"}");
              assertTrue(answer.contains("accept:{\\\"answer\\\":\\\"yes\\\"}"), answer);
            });
  }

  @Test
  void withoutAHandlerBeanASamplingRequestIsRefusedWithAClearError() {
    runner
        .withPropertyValues("spring.ai.mcp.client.stdio.servers-configuration=file:" + serversFile)
        .run(
            context -> {
              ToolCallback sample =
                  callback(
                      context.getBean(SupervisorToolCallbackProvider.class), "fixture__sample");
              ToolExecutionException refused =
                  assertThrows(
                      ToolExecutionException.class, () -> sample.call("{\"prompt\": \"2+2?\"}"));
              assertTrue(
                  refused.getMessage().contains("did not declare the sampling capability"),
                  refused.getMessage());
            });
  }

  private static ToolCallback callback(SupervisorToolCallbackProvider provider, String name) {
    return Arrays.stream(provider.getToolCallbacks())
        .filter(callback -> callback.getToolDefinition().name().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no callback " + name));
  }

  /** Accepts every elicitation with {"answer": "yes"}. */
  static final class AcceptingEverything implements ServerRequestHandler {
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
  }
}
