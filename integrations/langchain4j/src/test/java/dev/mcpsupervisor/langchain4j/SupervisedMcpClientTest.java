package dev.mcpsupervisor.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.ToolArgumentsException;
import dev.langchain4j.exception.ToolExecutionException;
import dev.langchain4j.mcp.McpToolProvider;
import dev.langchain4j.mcp.client.DefaultMcpClient;
import dev.langchain4j.mcp.client.McpClient;
import dev.langchain4j.mcp.client.McpException;
import dev.langchain4j.mcp.client.transport.stdio.StdioMcpTransport;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.tool.ToolProvider;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * An AiServices assistant whose scripted model asks for a tool call, run on the real fixture server
 * over stdio through {@link SupervisedMcpClient}, beside LangChain4j's own {@link DefaultMcpClient}
 * on the same server command.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SupervisedMcpClientTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  /** The model's side of the conversation: a fixed script instead of a network model. */
  interface Assistant {
    String chat(@MemoryId String conversation, @dev.langchain4j.service.UserMessage String text);
  }

  private final SessionSupervisor supervisor =
      SessionSupervisor.start(
          SupervisorConfig.builder()
              .stdio(
                  "fixture",
                  command().get(0),
                  command().subList(1, command().size()).toArray(String[]::new))
              .stdio(
                  "counter",
                  command().get(0),
                  command().subList(1, command().size()).toArray(String[]::new))
              .option("counter", "isolation", "context")
              .build());

  private final List<String> toolsTheModelSaw = new CopyOnWriteArrayList<>();

  @AfterAll
  void stopEverything() {
    supervisor.close();
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void theModelsToolCallRunsOnTheServerAndItsResultReachesTheModel() {
    ToolProvider everyServer =
        McpToolProvider.builder()
            .mcpClients(SupervisedMcpClient.forEveryServer(supervisor))
            .toolNameMapper(SupervisedMcpClient.SERVER_PREFIXED_NAMES)
            .build();
    Assistant assistant = assistant("fixture__" + FixtureTools.ECHO, everyServer);

    assertEquals("the tool said: hello", assistant.chat("conversation-1", "hello"));
    assertTrue(toolsTheModelSaw.contains("fixture__echo"), toolsTheModelSaw.toString());
    assertTrue(toolsTheModelSaw.contains("counter__echo"), toolsTheModelSaw.toString());
  }

  @Test
  void aConversationKeepsItsSessionOfAContextIsolatedServerAcrossTurns() {
    Assistant assistant =
        assistant(FixtureTools.COUNT, List.of(SupervisedMcpClient.of(supervisor, "counter")));

    assertEquals("the tool said: 1", assistant.chat("alice", "count"));
    assertEquals("the tool said: 2", assistant.chat("alice", "count"));
    assertEquals("the tool said: 1", assistant.chat("bob", "count"), "bob has his own session");
  }

  @Test
  void aToolCallAfterTheServerWasKilledSucceedsWhereDefaultMcpClientFails() throws Exception {
    Assistant supervised =
        assistant(FixtureTools.ECHO, List.of(SupervisedMcpClient.of(supervisor, "fixture")));
    assertEquals("the tool said: before", supervised.chat("kill-test", "before"));
    long supervisedPid = processOf("fixture");
    kill(supervisedPid);
    awaitRestartNoticed("fixture", supervisedPid);

    long supervisedStart = System.nanoTime();
    String supervisedAfter = supervised.chat("kill-test", "after");
    long supervisedMillis = (System.nanoTime() - supervisedStart) / 1_000_000;

    try (DefaultMcpClient direct =
        new DefaultMcpClient.Builder()
            .key("direct")
            .transport(new StdioMcpTransport.Builder().command(command()).build())
            .toolExecutionTimeout(Duration.ofSeconds(5))
            .build()) {
      Assistant unsupervised = assistant(FixtureTools.ECHO, List.of(direct));
      assertEquals("the tool said: before", unsupervised.chat("kill-test", "before"));
      long directPid = pidThrough(direct);
      kill(directPid);

      String directAfter;
      long directStart = System.nanoTime();
      try {
        directAfter = unsupervised.chat("kill-test", "after");
      } catch (RuntimeException e) {
        directAfter = "failed: " + e;
      }
      long directMillis = (System.nanoTime() - directStart) / 1_000_000;
      // the measured difference, in the test's report (target/surefire-reports)
      System.out.printf(
          "second call after kill: supervised \"%s\" in %d ms; DefaultMcpClient \"%s\" in %d ms%n",
          supervisedAfter, supervisedMillis, directAfter, directMillis);

      assertEquals("the tool said: after", supervisedAfter, "through the supervisor");
      assertFalse(
          directAfter.equals("the tool said: after"),
          "DefaultMcpClient answered after its server was killed; the docs' comparison is stale");
    }
  }

  @Test
  void failuresAreTheErrorsDefaultMcpClientGives() {
    McpClient client = SupervisedMcpClient.of(supervisor, "fixture");

    assertThrows(
        ToolArgumentsException.class,
        () ->
            client.executeTool(
                ToolExecutionRequest.builder().name("no_such_tool").arguments("{}").build()));
    assertThrows(
        ToolArgumentsException.class,
        () ->
            client.executeTool(
                ToolExecutionRequest.builder().name(FixtureTools.ECHO).arguments("[1").build()));
    assertThrows(
        ToolExecutionException.class,
        () ->
            client.executeTool(
                ToolExecutionRequest.builder().name(FixtureTools.FAIL).arguments("").build()));
    assertThrows(
        IllegalArgumentException.class, () -> SupervisedMcpClient.of(supervisor, "nowhere"));
    client.checkHealth();
  }

  @Test
  void resourcesAndPromptsAreReadThroughTheSupervisor() {
    McpClient client = SupervisedMcpClient.of(supervisor, "fixture");

    assertTrue(
        client.listResources().stream()
            .anyMatch(resource -> resource.uri().equals(FixtureTools.STATIC_RESOURCE_URI)));
    assertEquals(
        FixtureTools.STATIC_RESOURCE_TEXT,
        ((dev.langchain4j.mcp.client.McpTextResourceContents)
                client.readResource(FixtureTools.STATIC_RESOURCE_URI).contents().get(0))
            .text());
    assertTrue(
        client.listPrompts().stream()
            .anyMatch(prompt -> prompt.name().equals(FixtureTools.GREETING_PROMPT)));
    assertEquals(
        1, client.getPrompt(FixtureTools.GREETING_PROMPT, Map.of("name", "Ada")).messages().size());
    assertThrows(McpException.class, () -> client.readResource("fixture://nothing-here"));
  }

  /**
   * An assistant over the given MCP clients whose model calls {@code tool} with the user's text as
   * {@code message} (echo) or with no arguments (anything else), then answers with the tool's
   * result.
   */
  private Assistant assistant(String tool, List<McpClient> clients) {
    return assistant(tool, McpToolProvider.builder().mcpClients(clients).build());
  }

  private Assistant assistant(String tool, ToolProvider tools) {
    ChatModel scripted =
        new ChatModel() {
          @Override
          public ChatResponse doChat(ChatRequest request) {
            request.toolSpecifications().stream()
                .map(ToolSpecification::name)
                .forEach(toolsTheModelSaw::add);
            ChatMessage last = request.messages().get(request.messages().size() - 1);
            if (last instanceof ToolExecutionResultMessage result) {
              return ChatResponse.builder()
                  .aiMessage(AiMessage.from("the tool said: " + result.text()))
                  .build();
            }
            String arguments =
                tool.endsWith(FixtureTools.ECHO)
                    ? "{\"message\": \"" + ((UserMessage) last).singleText() + "\"}"
                    : "{}";
            return ChatResponse.builder()
                .aiMessage(
                    AiMessage.from(
                        ToolExecutionRequest.builder()
                            .id("call-1")
                            .name(tool)
                            .arguments(arguments)
                            .build()))
                .build();
          }
        };
    return AiServices.builder(Assistant.class)
        .chatModel(scripted)
        .chatMemoryProvider(conversation -> MessageWindowChatMemory.withMaxMessages(10))
        .toolProvider(tools)
        .build();
  }

  private static List<String> command() {
    return FixtureProcess.stdioCommand();
  }

  private long processOf(String server) throws Exception {
    return supervisor
        .snapshot()
        .toCompletableFuture()
        .get(WAIT.toSeconds(), TimeUnit.SECONDS)
        .keys()
        .stream()
        .filter(key -> key.server().equals(server))
        .flatMap(key -> key.sessions().stream())
        .filter(session -> session.pid().isPresent())
        .findFirst()
        .orElseThrow()
        .pid()
        .getAsLong();
  }

  private static long pidThrough(McpClient client) {
    return Long.parseLong(
        client
            .executeTool(
                ToolExecutionRequest.builder().name(FixtureTools.PID).arguments("{}").build())
            .resultText());
  }

  private static void kill(long pid) throws Exception {
    ProcessHandle process = ProcessHandle.of(pid).orElseThrow();
    process.destroyForcibly();
    process.onExit().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  /**
   * Waits, bounded, until the supervisor has seen the exit (the session restarted or is gone): the
   * time that passes between two turns of a real conversation.
   */
  private void awaitRestartNoticed(String server, long deadPid) throws Exception {
    long until = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < until) {
      SupervisorSnapshot snapshot =
          supervisor.snapshot().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      List<SupervisorSnapshot.SessionSnapshot> sessions = new ArrayList<>();
      snapshot.keys().stream()
          .filter(key -> key.server().equals(server))
          .forEach(key -> sessions.addAll(key.sessions()));
      if (sessions.stream()
          .noneMatch(
              session -> session.pid().isPresent() && session.pid().getAsLong() == deadPid)) {
        return;
      }
      Thread.onSpinWait();
    }
    throw new AssertionError("the supervisor did not notice that process " + deadPid + " exited");
  }
}
