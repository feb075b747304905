package dev.mcpsupervisor.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.delivery.ContextListener;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The supervisor over a scripted server as a stdio child process, crashed under load. */
@McpSupervisorTest
class StdioProcessTest {

  private static final String SERVER = "scripted";

  @Test
  void crashUnderLoadIsSeenAtOnceAndTheSessionComesBack(SupervisorTestKit kit) throws Exception {
    ScriptedServer server = kit.stdio(SERVER, CrashUnderLoad.Tools.class);
    kit.option(SERVER, "requestTimeout", CrashUnderLoad.REQUEST_TIMEOUT);
    SessionSupervisor supervisor = kit.supervisor();
    assertEquals("up", echo(supervisor, "flow-1", "up"));
    long firstPid = server.starts().get(0);
    CrashUnderLoad load = new CrashUnderLoad(supervisor, "flow-1", SERVER);

    CompletableFuture<Long> exitedAt =
        ProcessHandle.of(firstPid).orElseThrow().onExit().thenApply(exited -> System.nanoTime());
    load.fire();
    // the clock starts when the process is gone: the crash call reaches the tool behind 150
    // others, each journaled by the scripted server on its way in
    long lost = load.assertOutcome(Duration.ofSeconds(1), exitedAt.get(10, TimeUnit.SECONDS));

    assertTrue(lost >= 1, "at least the crash call itself is lost");
    assertFalse(ChildProcesses.isAlive(firstPid), "the crashed process is gone");
    assertEquals("after the crash", echo(supervisor, "flow-2", "after the crash"));
    List<Long> starts = server.starts();
    assertEquals(2, starts.size(), "one new process: " + starts);
    long secondPid = starts.get(1);
    assertNotEquals(firstPid, secondPid, "a new process serves the session");
    assertTrue(ChildProcesses.isAlive(secondPid));
    kit.close();
    assertFalse(ChildProcesses.isAlive(secondPid), "close() ends the process it started");
  }

  @Test
  void afterRootsListChangedTheServersRootsRequestIsAnsweredAndCallsGoOn(SupervisorTestKit kit)
      throws Exception {
    ScriptedServer server = kit.stdio(SERVER, CrashUnderLoad.Tools.class);
    SessionSupervisor supervisor = kit.supervisor();
    CompletableFuture<JsonRpcRequest> rootsAsked = new CompletableFuture<>();
    supervisor.register(
        "client",
        new ContextListener() {
          @Override
          public void onNotification(String server, JsonRpcNotification notification) {}

          @Override
          public CompletionStage<JsonRpcResponse> onServerRequest(
              String server, JsonRpcRequest request) {
            rootsAsked.complete(request);
            ObjectNode result = JsonRpcCodec.emptyObject();
            result.putArray("roots").addObject().put("uri", "file:///tmp").put("name", "tmp");
            return CompletableFuture.completedFuture(JsonRpcResponse.success(request.id(), result));
          }
        });
    supervisor.acquire("client", SERVER).toCompletableFuture().get(30, TimeUnit.SECONDS);

    supervisor.notify("client", SERVER, McpMethods.NOTIFICATION_ROOTS_LIST_CHANGED, null);
    assertEquals(McpMethods.ROOTS_LIST, rootsAsked.get(10, TimeUnit.SECONDS).method());
    for (int i = 0; i < 3; i++) {
      String message = "still answering " + i;
      assertEquals(message, echo(supervisor, "client", message));
    }
    assertEquals(1, server.received().stream().filter(StdioProcessTest::rootsChanged).count());
  }

  private static boolean rootsChanged(JsonNode message) {
    return McpMethods.NOTIFICATION_ROOTS_LIST_CHANGED.equals(message.path("method").asText());
  }

  private static String echo(SessionSupervisor supervisor, String context, String message) {
    return CrashUnderLoad.echo(supervisor, context, SERVER, message);
  }
}
