package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.delivery.ContextListener;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The supervisor over the real fixture as a stdio child process. */
class StdioProcessTest {

  private static final String SERVER = "fixture";

  @AfterAll
  static void noProcessOutlivesTheTests() {
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void crashUnderLoadIsSeenAtOnceAndTheSessionComesBack() throws Exception {
    long firstPid;
    long secondPid;
    try (SessionSupervisor supervisor =
        SessionSupervisor.start(RealFixture.config(RealFixture.stdio(SERVER, 0)))) {
      firstPid = RealFixture.pid(supervisor, "flow-1", SERVER);
      CrashUnderLoad load = new CrashUnderLoad(supervisor, "flow-1", SERVER);

      load.fire();
      long lost = load.assertOutcome(Duration.ofSeconds(1), load.crashSentAt);

      assertTrue(lost >= 1, "at least the crash call itself is lost");
      assertFalse(ChildProcesses.isAlive(firstPid), "the crashed process is gone");
      assertEquals(
          "after the crash",
          RealFixture.text(
              RealFixture.await(
                  RealFixture.call(
                      supervisor,
                      "flow-2",
                      SERVER,
                      FixtureTools.ECHO,
                      "message",
                      "after the crash"),
                  RealFixture.REQUEST_TIMEOUT)));
      secondPid = RealFixture.pid(supervisor, "flow-1", SERVER);
      assertNotEquals(firstPid, secondPid, "a new process serves the session");
      assertTrue(ChildProcesses.isAlive(secondPid));
    }
    assertFalse(ChildProcesses.isAlive(secondPid), "close() ends the process it started");
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void afterRootsListChangedTheServersRootsRequestIsAnsweredAndCallsGoOn() throws Exception {
    try (SessionSupervisor supervisor =
        SessionSupervisor.start(RealFixture.config(RealFixture.stdio(SERVER, 1)))) {
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
              return CompletableFuture.completedFuture(
                  JsonRpcResponse.success(request.id(), result));
            }
          });
      supervisor.acquire("client", SERVER).toCompletableFuture().get(30, TimeUnit.SECONDS);

      supervisor.notify("client", SERVER, McpMethods.NOTIFICATION_ROOTS_LIST_CHANGED, null);
      assertEquals(McpMethods.ROOTS_LIST, rootsAsked.get(10, TimeUnit.SECONDS).method());
      for (int i = 0; i < 3; i++) {
        String message = "still answering " + i;
        assertEquals(
            message,
            RealFixture.text(
                RealFixture.await(
                    RealFixture.call(
                        supervisor, "client", SERVER, FixtureTools.ECHO, "message", message),
                    Duration.ofSeconds(10))));
      }
    }
    ChildProcesses.assertNoneAlive();
  }
}
