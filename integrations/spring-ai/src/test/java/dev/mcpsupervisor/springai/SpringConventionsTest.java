package dev.mcpsupervisor.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The Spring Boot conventions: configuration metadata, Actuator health and Micrometer meters when
 * present (and nothing of them when absent), the tools offered only where they can succeed, the
 * ready sampling and elicitation handlers.
 */
class SpringConventionsTest {

  private static Path serversFile;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(SupervisorAutoConfiguration.class))
          .withPropertyValues("mcp-supervisor.servers-configuration=file:" + serversFile);

  @BeforeAll
  static void writeServersFile() throws IOException {
    List<String> fixture = FixtureProcess.stdioCommand();
    serversFile = Files.createTempFile("mcp-servers", ".json");
    Map<String, Object> command =
        Map.of("command", fixture.get(0), "args", fixture.subList(1, fixture.size()));
    Map<String, Object> declared = new java.util.HashMap<>(command);
    declared.put("interactiveTools", List.of("elicit"));
    Files.writeString(
        serversFile,
        JsonRpcCodec.mapper()
            .writeValueAsString(
                Map.of("mcpServers", Map.of("fixture", command, "declared", declared))));
  }

  @AfterAll
  static void nothingOutlivesTheContexts() throws IOException {
    Files.deleteIfExists(serversFile);
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void everyPropertyHasItsGeneratedMetadataWithADescription() throws IOException {
    JsonNode metadata;
    try (InputStream in =
        getClass()
            .getClassLoader()
            .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
      metadata = JsonRpcCodec.mapper().readTree(in);
    }
    Map<String, JsonNode> described = new java.util.HashMap<>();
    metadata.path("properties").forEach(p -> described.put(p.path("name").asText(), p));
    List<String> expected = new ArrayList<>();
    propertyNames(SupervisorProperties.PREFIX, SupervisorProperties.class, expected);
    assertEquals(
        Set.of(
            "mcp-supervisor.enabled",
            "mcp-supervisor.servers-configuration",
            "mcp-supervisor.required-servers",
            "mcp-supervisor.offer-unanswerable-tools",
            "mcp-supervisor.sampling.chat-model"),
        Set.copyOf(expected));
    for (String name : expected) {
      assertTrue(described.containsKey(name), name + " has no metadata: " + described.keySet());
      assertFalse(described.get(name).path("description").asText().isBlank(), name);
    }
  }

  /** The kebab-case names of a properties record's components, nested records expanded. */
  private static void propertyNames(String prefix, Class<?> type, List<String> names) {
    for (RecordComponent component : type.getRecordComponents()) {
      String name = prefix + "." + component.getName().replaceAll("([A-Z])", "-$1").toLowerCase();
      if (component.getType().isRecord()) {
        propertyNames(name, component.getType(), names);
      } else {
        names.add(name);
      }
    }
  }

  @Test
  void withoutActuatorOrMicrometerThereIsNeitherHealthNorMeters() {
    runner
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class, MeterBinder.class))
        .run(
            context -> {
              assertTrue(context.containsBean("sessionSupervisor"));
              assertFalse(context.containsBean("mcpSupervisorHealthContributor"));
              assertFalse(context.containsBean("supervisorMeters"));
            });
  }

  @Test
  void eachServerHasAHealthThatIsUpOnceItAnswered() {
    runner
        .withPropertyValues("mcp-supervisor.required-servers=fixture")
        .run(
            context -> {
              CompositeHealthContributor health =
                  context.getBean(
                      "mcpSupervisorHealthContributor", CompositeHealthContributor.class);
              HealthIndicator fixture = (HealthIndicator) health.getContributor("fixture");
              assertEquals(Status.UNKNOWN, fixture.health().getStatus());
              assertEquals("not started", fixture.health().getDetails().get("state"));
              callback(context.getBean(SupervisorToolCallbackProvider.class), "fixture__echo")
                  .call("{\"message\": \"hi\"}");
              assertEquals(Status.UP, fixture.health().getStatus());
              assertEquals(true, fixture.health().getDetails().get("required"));
              assertEquals(
                  false,
                  ((HealthIndicator) health.getContributor("declared"))
                      .health()
                      .getDetails()
                      .get("required"));
            });
  }

  @Test
  void aCallThroughTheFixtureShowsInTheMeters() {
    runner
        .withConfiguration(
            AutoConfigurations.of(
                MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
        .run(
            context -> {
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              SupervisorToolCallbackProvider provider =
                  context.getBean(SupervisorToolCallbackProvider.class);
              callback(provider, "fixture__echo").call("{\"message\": \"hi\"}");
              callback(provider, "fixture__echo").call("{\"message\": \"again\"}");
              assertEquals(
                  2,
                  registry
                      .get("mcp.supervisor.calls")
                      .tags("server", "fixture", "tool", "echo", "outcome", "success")
                      .timer()
                      .count());
              assertTrue(
                  registry
                          .get("mcp.supervisor.calls")
                          .tags("server", "fixture", "tool", "echo")
                          .timer()
                          .totalTime(java.util.concurrent.TimeUnit.NANOSECONDS)
                      > 0);
              assertEquals(
                  1,
                  registry
                      .get("mcp.supervisor.sessions.started")
                      .tag("server", "fixture")
                      .counter()
                      .count());
              assertTrue(
                  registry
                          .get("mcp.supervisor.requests")
                          .tags("server", "fixture", "method", "tools/call", "outcome", "success")
                          .timer()
                          .count()
                      >= 2);
            });
  }

  @Test
  void aToolThatCanOnlyFailIsNotOfferedUnlessAHandlerOrThePropertySaysSo() {
    runner.run(
        context -> {
          SupervisorToolCallbackProvider provider =
              context.getBean(SupervisorToolCallbackProvider.class);
          // declared: left out from the start
          assertFalse(names(provider).contains("declared__elicit"));
          assertTrue(names(provider).contains("declared__echo"));
          // learned: offered until a call showed it sends a sampling request nobody answers
          assertTrue(names(provider).contains("fixture__sample"));
          try {
            callback(provider, "fixture__sample").call("{\"prompt\": \"2+2?\"}");
          } catch (RuntimeException refused) {
            // -32009: nobody answers sampling
          }
          assertFalse(names(provider).contains("fixture__sample"));
        });
    runner
        .withPropertyValues("mcp-supervisor.offer-unanswerable-tools=true")
        .run(
            context ->
                assertTrue(
                    names(context.getBean(SupervisorToolCallbackProvider.class))
                        .contains("declared__elicit")));
  }

  @Test
  void anElicitationHandlerBeanAnswersAndItsToolsAreOffered() {
    runner
        .withBean(
            ElicitationHandler.class,
            () ->
                (server, params) ->
                    java.util.concurrent.CompletableFuture.completedFuture(
                        JsonRpcCodec.mapper()
                            .valueToTree(
                                Map.of("action", "accept", "content", Map.of("answer", "yes")))))
        .run(
            context -> {
              SupervisorToolCallbackProvider provider =
                  context.getBean(SupervisorToolCallbackProvider.class);
              assertTrue(names(provider).contains("declared__elicit"));
              String answer = callback(provider, "declared__elicit").call("{\"message\": \"Go?\"}");
              assertTrue(answer.contains("accept:{\\\"answer\\\":\\\"yes\\\"}"), answer);
            });
  }

  @Test
  void theApplicationsChatModelAnswersSamplingWhenThePropertySaysSo() {
    runner
        .withPropertyValues("mcp-supervisor.sampling.chat-model=true")
        .withBean(ChatModel.class, () -> new Answering("4"))
        .run(
            context -> {
              String answer =
                  callback(context.getBean(SupervisorToolCallbackProvider.class), "fixture__sample")
                      .call("{\"prompt\": \"2+2?\"}");
              assertTrue(answer.contains("\"text\":\"4\""), answer);
            });
    runner
        .withPropertyValues("mcp-supervisor.sampling.chat-model=true")
        .run(
            context -> {
              assertTrue(context.getStartupFailure() != null);
              assertTrue(
                  rootMessage(context.getStartupFailure()).contains("needs exactly one ChatModel"),
                  rootMessage(context.getStartupFailure()));
            });
  }

  private static String rootMessage(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause.getMessage();
  }

  private static Set<String> names(SupervisorToolCallbackProvider provider) {
    return Arrays.stream(provider.getToolCallbacks())
        .map(callback -> callback.getToolDefinition().name())
        .collect(Collectors.toSet());
  }

  private static org.springframework.ai.tool.ToolCallback callback(
      SupervisorToolCallbackProvider provider, String name) {
    return Arrays.stream(provider.getToolCallbacks())
        .filter(callback -> callback.getToolDefinition().name().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no callback " + name));
  }

  /** A scripted model: always the same answer, no network. */
  static final class Answering implements ChatModel {
    private final String text;

    Answering(String text) {
      this.text = text;
    }

    @Override
    public ChatResponse call(Prompt prompt) {
      return new ChatResponse(List.of(new Generation(new AssistantMessage(text))));
    }
  }
}
