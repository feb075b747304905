package dev.mcpsupervisor.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.SupervisorClient;
import dev.mcpsupervisor.actors.SupervisorException;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.mcp.SyncMcpToolCallback;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A Spring Boot application with the auto-configuration, pointed at an {@code mcpServers} file by
 * Spring AI's own property: the fixture over stdio, a server whose command does not exist, and
 * server-everything when .ci/.work has it. A ChatClient whose scripted model asks for a tool call
 * runs it through the supervisor.
 */
@SpringBootTest(classes = SupervisorSpringAiTest.App.class)
@DirtiesContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SupervisorSpringAiTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Path NODE_MODULES =
      Path.of(System.getProperty("mcp-supervisor.ci-work", "../../.ci/.work"))
          .toAbsolutePath()
          .resolve("node_modules");
  private static final Path EVERYTHING_SERVER =
      NODE_MODULES.resolve("@modelcontextprotocol/server-everything/dist/index.js");

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {}

  @Autowired SupervisorToolCallbackProvider tools;
  @Autowired SupervisorClient client;
  @Autowired SessionSupervisor supervisor;

  @DynamicPropertySource
  static void serversFile(DynamicPropertyRegistry registry) throws IOException {
    Map<String, Object> servers = new LinkedHashMap<>();
    List<String> fixture = FixtureProcess.stdioCommand();
    servers.put(
        "fixture", Map.of("command", fixture.get(0), "args", fixture.subList(1, fixture.size())));
    servers.put("broken", Map.of("command", "/nonexistent/mcp-server-that-is-not-installed"));
    if (Files.isRegularFile(EVERYTHING_SERVER)) {
      servers.put(
          "everything",
          Map.of("command", node(), "args", List.of(EVERYTHING_SERVER.toString(), "stdio")));
    }
    Path file = Files.createTempFile("mcp-servers", ".json");
    file.toFile().deleteOnExit();
    Files.writeString(
        file, JsonRpcCodec.mapper().writeValueAsString(Map.of("mcpServers", servers)));
    registry.add("spring.ai.mcp.client.stdio.servers-configuration", () -> "file:" + file);
  }

  @AfterAll
  void everyServerProcessEndsWithTheSupervisor() {
    supervisor.close();
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void theFixturesToolsAreCallbacksNamedServerAndTool() {
    List<String> names = names(tools.getToolCallbacks());

    assertTrue(names.contains("fixture__echo"), names.toString());
    assertTrue(names.contains("fixture__add"), names.toString());
    assertTrue(names.stream().noneMatch(name -> name.startsWith("broken__")), names.toString());
    ToolCallback add = callback("fixture__add");
    assertTrue(add.getToolDefinition().inputSchema().contains("\"a\""));
  }

  @Test
  void aChatClientsToolCallRunsOnTheFixtureAndItsContentReachesTheModel() {
    ChatClient chat =
        ChatClient.builder(new ScriptedModel("fixture__echo", "{\"message\": \"hello\"}"))
            .defaultToolCallbacks(tools)
            .build();

    String answer = chat.prompt().user("say hello through the tool").call().content();

    assertEquals("the tool said: [{\"type\":\"text\",\"text\":\"hello\"}]", answer);
  }

  @Test
  void callbacksBehaveAsSpringAisOwn() {
    assertTrue(
        callback("fixture__pid").call("").contains("\"type\":\"text\""), "empty input is {}");
    ToolExecutionException failed =
        assertThrows(ToolExecutionException.class, () -> callback("fixture__fail").call("{}"));
    assertTrue(failed.getMessage().contains(FixtureTools.FAIL_TEXT), failed.getMessage());
    assertThrows(ToolExecutionException.class, () -> callback("fixture__echo").call("not json"));
  }

  @Test
  void aToolAddedByTheServerIsACallbackAtTheNextRequest() {
    assertFalse(names(tools.getToolCallbacks()).contains("fixture__" + FixtureTools.DYNAMIC_TOOL));

    callback("fixture__" + FixtureTools.TRIGGER_LIST_CHANGED).call("{}");
    try {
      awaitTrue(
          () -> names(tools.getToolCallbacks()).contains("fixture__" + FixtureTools.DYNAMIC_TOOL),
          "the tool added after list_changed appears");
    } finally {
      callback("fixture__" + FixtureTools.TRIGGER_LIST_CHANGED).call("{}");
    }
  }

  @Test
  void theApplicationStartedDespiteTheMissingCommandAndItsCallsFailFast() {
    long start = System.nanoTime();
    CompletionException failure =
        assertThrows(
            CompletionException.class,
            () ->
                client
                    .callTool("run-1", "broken", "anything", Map.of())
                    .toCompletableFuture()
                    .join());
    long millis = (System.nanoTime() - start) / 1_000_000;

    SupervisorException error = assertInstanceOf(SupervisorException.class, failure.getCause());
    assertEquals(JsonRpcErrorCodes.UPSTREAM_UNAVAILABLE, error.error().code(), error.getMessage());
    assertTrue(millis < 10_000, "failed after " + millis + " ms");
  }

  @Test
  void serverEverythingsToolsAreCallbacksToo() {
    assumeTrue(
        Files.isRegularFile(EVERYTHING_SERVER),
        EVERYTHING_SERVER + " not installed (`source .ci/node-env.sh` or .ci/run installs it)");

    String answer = callback("everything__echo").call("{\"message\": \"hi\"}");

    assertTrue(answer.contains("Echo: hi"), answer);
  }

  @Test
  void aCallAfterTheServerWasKilledSucceedsWhereSpringAisOwnCallbackFails() throws Exception {
    ToolCallback supervised = callback("fixture__echo");
    assertTrue(supervised.call("{\"message\": \"before\"}").contains("before"));
    long supervisedPid = processOf("fixture");
    kill(supervisedPid);
    awaitTrue(() -> !runs("fixture", supervisedPid), "the supervisor sees the exit");

    long supervisedStart = System.nanoTime();
    String supervisedAfter = supervised.call("{\"message\": \"after\"}");
    long supervisedMillis = (System.nanoTime() - supervisedStart) / 1_000_000;

    List<String> command = FixtureProcess.stdioCommand();
    McpSyncClient direct =
        McpClient.sync(
                new StdioClientTransport(
                    ServerParameters.builder(command.get(0))
                        .args(command.subList(1, command.size()))
                        .build(),
                    McpJsonDefaults.getMapper()))
            .requestTimeout(Duration.ofSeconds(5))
            .initializationTimeout(WAIT)
            .build();
    String directAfter;
    long directMillis;
    try {
      direct.initialize();
      McpSchema.Tool echo =
          direct.listTools().tools().stream()
              .filter(tool -> tool.name().equals(FixtureTools.ECHO))
              .findFirst()
              .orElseThrow();
      ToolCallback springAis = SyncMcpToolCallback.builder().mcpClient(direct).tool(echo).build();
      assertTrue(springAis.call("{\"message\": \"before\"}").contains("before"));
      kill(pidThrough(direct));

      long directStart = System.nanoTime();
      try {
        directAfter = springAis.call("{\"message\": \"after\"}");
      } catch (ToolExecutionException e) {
        directAfter = "failed: " + e.getCause();
      }
      directMillis = (System.nanoTime() - directStart) / 1_000_000;
    } finally {
      direct.close();
    }
    // the measured difference, in the test's report (target/surefire-reports)
    System.out.printf(
        "second call after kill: supervised %s in %d ms; SyncMcpToolCallback %s in %d ms%n",
        supervisedAfter, supervisedMillis, directAfter, directMillis);

    assertTrue(supervisedAfter.contains("after"), supervisedAfter);
    assertTrue(
        directAfter.startsWith("failed: "),
        "Spring AI's own callback answered after its server was killed; the docs' comparison is"
            + " stale: "
            + directAfter);
  }

  /** A chat model that asks for one tool call, then answers with what the tool returned. */
  static final class ScriptedModel implements ChatModel {

    private final ToolCallingManager toolCalling = ToolCallingManager.builder().build();
    private final String tool;
    private final String arguments;

    ScriptedModel(String tool, String arguments) {
      this.tool = tool;
      this.arguments = arguments;
    }

    /** Tool-calling options, so that ChatClient hands this model its tool callbacks. */
    @Override
    public ChatOptions getOptions() {
      return ToolCallingChatOptions.builder().build();
    }

    @Override
    public ChatResponse call(Prompt prompt) {
      AssistantMessage asking =
          AssistantMessage.builder()
              .content("")
              .toolCalls(
                  List.of(new AssistantMessage.ToolCall("call-1", "function", tool, arguments)))
              .build();
      ToolExecutionResult executed =
          toolCalling.executeToolCalls(prompt, new ChatResponse(List.of(new Generation(asking))));
      List<Message> history = executed.conversationHistory();
      ToolResponseMessage answer = (ToolResponseMessage) history.get(history.size() - 1);
      return new ChatResponse(
          List.of(
              new Generation(
                  new AssistantMessage(
                      "the tool said: " + answer.getResponses().get(0).responseData()))));
    }
  }

  private ToolCallback callback(String name) {
    return Arrays.stream(tools.getToolCallbacks())
        .filter(callback -> callback.getToolDefinition().name().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no callback " + name));
  }

  private static List<String> names(ToolCallback[] callbacks) {
    return Arrays.stream(callbacks).map(callback -> callback.getToolDefinition().name()).toList();
  }

  private long processOf(String server) throws Exception {
    return sessions(server).stream()
        .filter(session -> session.pid().isPresent())
        .findFirst()
        .orElseThrow()
        .pid()
        .getAsLong();
  }

  private boolean runs(String server, long pid) {
    try {
      return sessions(server).stream()
          .anyMatch(session -> session.pid().isPresent() && session.pid().getAsLong() == pid);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private List<SupervisorSnapshot.SessionSnapshot> sessions(String server) throws Exception {
    List<SupervisorSnapshot.SessionSnapshot> sessions = new ArrayList<>();
    supervisor
        .snapshot()
        .toCompletableFuture()
        .get(WAIT.toSeconds(), TimeUnit.SECONDS)
        .keys()
        .stream()
        .filter(key -> key.server().equals(server))
        .forEach(key -> sessions.addAll(key.sessions()));
    return sessions;
  }

  private static long pidThrough(McpSyncClient client) {
    McpSchema.CallToolResult result =
        client.callTool(new McpSchema.CallToolRequest(FixtureTools.PID, Map.of()));
    return Long.parseLong(((McpSchema.TextContent) result.content().get(0)).text());
  }

  private static void kill(long pid) throws Exception {
    ProcessHandle process = ProcessHandle.of(pid).orElseThrow();
    process.destroyForcibly();
    process.onExit().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  /** Bounded polling: the condition must hold within {@link #WAIT}. */
  private static void awaitTrue(java.util.function.BooleanSupplier condition, String what) {
    long until = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new AssertionError(what + ": not within " + WAIT);
      }
      Thread.onSpinWait();
    }
  }

  private static String node() {
    Path installed = NODE_MODULES.resolve(".bin/node");
    return Files.isExecutable(installed) ? installed.toString() : "node";
  }
}
