package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.app.demo.DemoConfig;
import dev.mcpsupervisor.app.demo.DemoServer;
import dev.mcpsupervisor.app.runtime.ChildProcesses;
import dev.mcpsupervisor.fixture.SerializedSends;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The demo server, spawned exactly as the built-in config spawns it, answering a real SDK client
 * over stdio.
 */
@Timeout(60)
class DemoServerTest {

  private static final ProgressRecorder progress = new ProgressRecorder();
  private static McpSyncClient client;

  @BeforeAll
  static void startDemoServerAsTheDemoConfigDoes() {
    List<String> command = DemoConfig.demoServerCommand();
    ServerParameters parameters =
        ServerParameters.builder(command.get(0)).args(command.subList(1, command.size())).build();
    client =
        // one send at a time on the client's side, so that the race under test stays the server's
        McpClient.sync(
                new SerializedSends(
                    new StdioClientTransport(parameters, McpJsonDefaults.getMapper())))
            .requestTimeout(Duration.ofSeconds(20))
            .initializationTimeout(Duration.ofSeconds(30))
            .progressConsumer(progress)
            .build();
    client.initialize();
  }

  @AfterAll
  static void stopAndCheckNoDemoProcessIsLeft() {
    List<ProcessHandle> before = demoProcesses();
    client.closeGracefully();
    boolean exited = ChildProcesses.awaitExit(before, Duration.ofSeconds(10));
    List<ProcessHandle> left = demoProcesses();
    ChildProcesses.kill(left);
    assertTrue(exited && left.isEmpty(), "demo server processes left after close: " + left);
  }

  @Test
  void listsItsFiveTools() {
    List<String> names = client.listTools().tools().stream().map(Tool::name).sorted().toList();
    assertEquals(List.of("add", "echo", "progress", "sleep", "time"), names);
    assertEquals(DemoServer.NAME, client.getServerInfo().name());
  }

  /**
   * The SDK's stdio transport refuses a response sent while another thread sends one (a list is
   * answered on the reader thread, a tool call on a worker): each must still reach the client.
   */
  @Test
  void racingListsAndCallsAreAllAnswered() {
    int callers = 400;
    ExecutorService threads = Executors.newFixedThreadPool(64);
    try {
      List<CompletableFuture<Boolean>> answers =
          java.util.stream.IntStream.range(0, callers)
              .mapToObj(
                  i ->
                      CompletableFuture.supplyAsync(
                          () ->
                              i % 2 == 0
                                  ? client.listTools().tools().size() == 5
                                  : text(call("echo", Map.of("message", "m" + i))).equals("m" + i),
                          threads))
              .toList();
      List<String> unanswered =
          answers.stream()
              .map(
                  answer ->
                      answer
                          .handle(
                              (ok, failure) ->
                                  ok == Boolean.TRUE
                                      ? null
                                      : failure != null ? failure.toString() : "a wrong answer")
                          .join())
              .filter(java.util.Objects::nonNull)
              .toList();
      assertEquals(List.of(), unanswered, "every list and call is answered, rightly");
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void echoReturnsTheMessage() {
    assertEquals("héllo ✓", text(call("echo", Map.of("message", "héllo ✓"))));
  }

  @Test
  void addIsExactInDecimal() {
    assertEquals("5", text(call("add", Map.of("a", 2, "b", 3))));
    assertEquals("0.3", text(call("add", Map.of("a", 0.1, "b", 0.2))));
  }

  @Test
  void timeIsNowInUtc() {
    Instant before = Instant.now();
    String answer = text(call("time", Map.of()));
    Instant after = Instant.now();
    assertTrue(answer.endsWith("Z"), answer);
    Instant time = Instant.parse(answer);
    assertFalse(
        time.isBefore(before.minusSeconds(1)) || time.isAfter(after.plusSeconds(1)), answer);
  }

  @Test
  void sleepWaitsAtLeastTheGivenTime() {
    long start = System.nanoTime();
    assertEquals("slept 200 ms", text(call("sleep", Map.of("ms", 200))));
    assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() >= 200);
  }

  @Test
  void progressNotifiesEachStepForTheCallersToken() throws InterruptedException {
    CallToolRequest request =
        CallToolRequest.builder()
            .name("progress")
            .arguments(Map.of("steps", 3))
            .progressToken("demo-token")
            .build();
    CallToolResult result = client.callTool(request);
    assertEquals("done 3 steps", text(result));
    assertEquals(List.of(1.0, 2.0, 3.0), progress.await("demo-token", 3, Duration.ofSeconds(10)));
  }

  @Test
  void badArgumentsAreToolErrorsNamingTheArgument() {
    CallToolResult missing = call("echo", Map.of());
    assertTrue(missing.isError());
    // the SDK checks the input schema before the handler runs
    assertTrue(text(missing).contains("'message'"), text(missing));
    CallToolResult tooLong = call("sleep", Map.of("ms", DemoServer.MAX_SLEEP_MS + 1));
    assertTrue(tooLong.isError());
    assertEquals(
        "argument 'ms' must be an integer from 0 to " + DemoServer.MAX_SLEEP_MS, text(tooLong));
  }

  private static CallToolResult call(String tool, Map<String, Object> arguments) {
    return client.callTool(CallToolRequest.builder().name(tool).arguments(arguments).build());
  }

  private static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }

  private static List<ProcessHandle> demoProcesses() {
    return Descendants.running(ProcessHandle.current(), DemoServer.class.getName());
  }
}
