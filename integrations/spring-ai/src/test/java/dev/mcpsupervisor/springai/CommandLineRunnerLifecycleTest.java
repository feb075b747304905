package dev.mcpsupervisor.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The docs' Agent shape: a CommandLineRunner application whose run returns once the runner has
 * called a tool, and whose context, closed (as the JVM's shutdown hook does at exit), closes the
 * supervisor: its actor system terminated and no child process left.
 */
class CommandLineRunnerLifecycleTest {

  @Test
  void theRunReturnsAfterTheRunnerAndClosingTheContextEndsTheSupervisor(@TempDir Path dir)
      throws Exception {
    List<String> fixture = FixtureProcess.stdioCommand();
    Path servers = dir.resolve("mcp-servers.json");
    Files.writeString(
        servers,
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

    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(Agent.class)
            .web(WebApplicationType.NONE)
            .properties(
                "spring.ai.mcp.client.stdio.servers-configuration=file:" + servers,
                "spring.main.banner-mode=off")
            .run();
    SessionSupervisor supervisor = context.getBean(SessionSupervisor.class);
    assertTrue(context.getBean(Answer.class).text().get().contains("hello"));
    assertEquals(1, ProcessHandle.current().children().filter(ProcessHandle::isAlive).count());

    context.close();

    assertTrue(supervisor.actorSystem().whenTerminated().isCompleted());
    ChildProcesses.assertNoneAlive();
  }

  /** What the runner was answered. */
  record Answer(AtomicReference<String> text) {}

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class Agent {

    @Bean
    Answer answer() {
      return new Answer(new AtomicReference<>());
    }

    @Bean
    CommandLineRunner ask(SupervisorToolCallbackProvider tools, Answer answer) {
      return args ->
          answer
              .text()
              .set(
                  Arrays.stream(tools.getToolCallbacks())
                      .filter(tool -> tool.getToolDefinition().name().equals("fixture__echo"))
                      .findFirst()
                      .orElseThrow()
                      .call("{\"message\": \"hello\"}"));
    }
  }
}
