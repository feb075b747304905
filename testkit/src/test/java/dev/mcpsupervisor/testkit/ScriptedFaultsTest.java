package dev.mcpsupervisor.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.mcpsupervisor.actors.SupervisorClient;
import dev.mcpsupervisor.actors.SupervisorException;
import dev.mcpsupervisor.actors.call.CallOptions;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.protocol.tools.ToolResult;
import dev.mcpsupervisor.testkit.ScriptedServer.Era;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each fault does what it says, over stdio and HTTP (in the test's JVM and as a child process), in
 * both eras.
 */
@McpSupervisorTest
class ScriptedFaultsTest {

  private static final String SERVER = "scripted";
  private static final String HTTP_PROCESS = "http-process";

  /** The faults under test, one tool each, with a tool that always answers beside them. */
  public static final class Faults implements Scenario {
    @Override
    public void define(Script script) {
      script.tool("echo").answer(args -> String.valueOf(args.get("message")));
      script.tool("dies").answer("before").exit(3).answer("after");
      script.tool("hangs").hang();
      script.tool("garbles").malformed();
    }
  }

  static Stream<Arguments> wires() {
    return Stream.of(
        Arguments.of("stdio", Era.SESSIONS),
        Arguments.of("stdio", Era.STATELESS),
        Arguments.of("http", Era.SESSIONS),
        Arguments.of("http", Era.STATELESS),
        Arguments.of(HTTP_PROCESS, Era.SESSIONS),
        Arguments.of(HTTP_PROCESS, Era.STATELESS));
  }

  private static ScriptedServer server(SupervisorTestKit kit, String transport, Era era) {
    return switch (transport) {
      case "stdio" -> kit.stdio(SERVER, Faults.class, era);
      case "http" -> kit.http(SERVER, new Faults(), era);
      default -> kit.httpProcess(SERVER, Faults.class, era);
    };
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("wires")
  void anExitIsSeenAsALossAndTheServerIsRestarted(
      String transport, Era era, SupervisorTestKit kit) {
    ScriptedServer server = server(kit, transport, era);
    if (transport.equals(HTTP_PROCESS)) {
      kit.settings(SupervisorTestKit.RECONNECT_UNTIL_BACK); // a new process takes a JVM start
    }
    SupervisorClient client = kit.client();

    assertEquals("before", call(client, "dies").text());
    assertThrows(CompletionException.class, () -> call(client, "dies"));
    if (!transport.equals("stdio") && era == Era.STATELESS) {
      // no connection to lose: the next call goes to the server once it is back
      server.awaitStarts(2, SupervisorTestKit.EXPECT_TIMEOUT);
    } else {
      kit.expectLost(SERVER);
      kit.expectRestart(SERVER);
    }

    assertEquals("after", call(client, "dies").text());
    List<Long> starts = server.starts();
    assertEquals(2, starts.size(), "started, then started again: " + starts);
    if (!transport.equals("http")) {
      assertNotEquals(starts.get(0), starts.get(1), "a new process: " + starts);
      assertFalse(ChildProcesses.isAlive(starts.get(0)), "the first one is gone");
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("wires")
  void aHangHitsTheDeadline(String transport, Era era, SupervisorTestKit kit) {
    server(kit, transport, era);
    SupervisorClient client = kit.client();
    assertEquals("started", echo(client, "started"));

    CompletionException failed =
        assertThrows(
            CompletionException.class,
            () ->
                client
                    .callTool(
                        "test",
                        SERVER,
                        "hangs",
                        JsonNodeFactory.instance.objectNode(),
                        CallOptions.defaults().withDeadline(Duration.ofSeconds(1)))
                    .toCompletableFuture()
                    .join());

    SupervisorException error = assertInstanceOf(SupervisorException.class, failed.getCause());
    assertTrue(
        error.getMessage().toLowerCase().contains("time"), "a deadline: " + error.getMessage());
    assertEquals("still here", echo(client, "still here"));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("wires")
  void aMalformedAnswerFailsThatCallAlone(String transport, Era era, SupervisorTestKit kit) {
    server(kit, transport, era);
    // today the supervisor drops an answer it cannot read, so the call fails by its deadline (over
    // HTTP in 2026-07-28 as a lost session); issue 35 item 6 makes it fail at once with -32603
    kit.option(SERVER, "requestTimeout", Duration.ofSeconds(5));
    SupervisorClient client = kit.client();

    CompletionException failed =
        assertThrows(CompletionException.class, () -> call(client, "garbles"));

    assertInstanceOf(SupervisorException.class, failed.getCause());
    assertEquals("still here", echo(client, "still here"));
  }

  private static ToolResult call(SupervisorClient client, String tool) {
    return client.callTool("test", SERVER, tool, Map.of()).toCompletableFuture().join();
  }

  private static String echo(SupervisorClient client, String message) {
    return client
        .callTool("test", SERVER, "echo", Map.of("message", message))
        .toCompletableFuture()
        .join()
        .text();
  }
}
