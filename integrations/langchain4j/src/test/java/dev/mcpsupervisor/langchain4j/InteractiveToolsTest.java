package dev.mcpsupervisor.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.ToolExecutionException;
import dev.langchain4j.mcp.client.McpClient;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.LoggerFactory;

/**
 * Tools that ask the client for sampling or elicitation, on the real fixture server over stdio:
 * left out of the model's tools where nothing answers them, answered by the application's {@link
 * ChatModel} and {@link ElicitationHandler} where given.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InteractiveToolsTest {

  /**
   * Declares {@code sample} interactive; {@code elicit} is interactive only once a call shows it.
   */
  private static final String DECLARING = "declaring";

  private static final String LEARNING = "learning";

  private final SessionSupervisor supervisor =
      SessionSupervisor.start(
          SupervisorConfig.builder()
              .stdio(DECLARING, command().get(0), arguments())
              .option(DECLARING, "interactiveTools", List.of(FixtureTools.SAMPLE))
              .stdio(LEARNING, command().get(0), arguments())
              .build());

  @AfterAll
  void stopEverything() {
    supervisor.close();
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void withoutHandlersADeclaredInteractiveToolIsLeftOutAndLoggedOnce() {
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    Logger logger = (Logger) LoggerFactory.getLogger(SupervisedMcpClient.class);
    log.start();
    logger.addAppender(log);
    try {
      McpClient client = SupervisedMcpClient.of(supervisor, DECLARING);

      assertFalse(names(client).contains(FixtureTools.SAMPLE), names(client).toString());
      assertTrue(names(client).contains(FixtureTools.ECHO));
      assertTrue(names(client).contains(FixtureTools.ELICIT), "not known to be interactive yet");
      List<String> lines =
          log.list.stream()
              .filter(event -> event.getLevel() == Level.INFO)
              .map(ILoggingEvent::getFormattedMessage)
              .toList();
      assertEquals(1, lines.size(), lines.toString());
      assertTrue(lines.get(0).contains("tool sample left out"), lines.get(0));
    } finally {
      logger.detachAppender(log);
    }
  }

  @Test
  void aToolACallShowedToAskForElicitationIsLeftOutFromThenOn() {
    McpClient client = SupervisedMcpClient.of(supervisor, LEARNING);
    assertTrue(names(client).contains(FixtureTools.ELICIT));

    assertThrows(
        ToolExecutionException.class,
        () -> client.executeTool(call(FixtureTools.ELICIT, "{\"message\": \"Proceed?\"}")));

    assertFalse(names(client).contains(FixtureTools.ELICIT), names(client).toString());
  }

  @Test
  void keptOnRequestTheyAreOffered() {
    McpClient client =
        SupervisedMcpClient.builder(supervisor).keepInteractiveTools().build(DECLARING);

    assertTrue(names(client).contains(FixtureTools.SAMPLE));
  }

  @Test
  void samplingIsAnsweredByTheApplicationsChatModel() {
    List<String> asked = new CopyOnWriteArrayList<>();
    ChatModel model =
        new ChatModel() {
          @Override
          public ChatResponse doChat(ChatRequest request) {
            asked.add(((UserMessage) request.messages().get(0)).singleText());
            return ChatResponse.builder().aiMessage(AiMessage.from("4, said the model")).build();
          }
        };
    McpClient client = SupervisedMcpClient.builder(supervisor).sampling(model).build(DECLARING);

    assertTrue(names(client).contains(FixtureTools.SAMPLE), "a handler answers it");
    assertEquals(
        "4, said the model",
        client.executeTool(call(FixtureTools.SAMPLE, "{\"prompt\": \"2+2?\"}")).resultText());
    assertEquals(List.of("2+2?"), asked);
  }

  @Test
  void elicitationIsAnsweredByTheHandler() {
    List<String> asked = new CopyOnWriteArrayList<>();
    McpClient client =
        SupervisedMcpClient.builder(supervisor)
            .elicitation(
                (server, message, schema) -> {
                  asked.add(server + ": " + message);
                  return ElicitationAnswer.accept(Map.of("answer", "yes"));
                })
            .build(DECLARING);

    assertEquals(
        "accept:{\"answer\":\"yes\"}",
        client.executeTool(call(FixtureTools.ELICIT, "{\"message\": \"Proceed?\"}")).resultText());
    assertEquals(List.of(DECLARING + ": Proceed?"), asked);
  }

  private static List<String> names(McpClient client) {
    return client.listTools().stream().map(ToolSpecification::name).toList();
  }

  private static ToolExecutionRequest call(String tool, String arguments) {
    return ToolExecutionRequest.builder().id("call-1").name(tool).arguments(arguments).build();
  }

  private static List<String> command() {
    return FixtureProcess.stdioCommand();
  }

  private static String[] arguments() {
    return command().subList(1, command().size()).toArray(String[]::new);
  }
}
