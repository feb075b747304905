package dev.mcpsupervisor.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.fixture.ChildProcesses;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The supervisor over a scripted server over Streamable HTTP in its own process, crashed under load
 * and started again on its port.
 */
@McpSupervisorTest
class StreamableHttpProcessTest {

  private static final String SERVER = "scripted-http";

  @Test
  void crashUnderLoadIsSeenAtOnceAndTheSessionComesBackWhenTheServerDoes(SupervisorTestKit kit)
      throws Exception {
    ScriptedServer server =
        kit.httpProcess(SERVER, CrashUnderLoad.Tools.class, ScriptedServer.Era.SESSIONS);
    kit.option(SERVER, "requestTimeout", CrashUnderLoad.REQUEST_TIMEOUT);
    kit.settings(SupervisorTestKit.RECONNECT_UNTIL_BACK);
    SessionSupervisor supervisor = kit.supervisor();
    assertEquals("up", echo(supervisor, "flow-1", "up"));
    long firstPid = server.starts().get(0);
    CrashUnderLoad load = new CrashUnderLoad(supervisor, "flow-1", SERVER);

    CompletableFuture<Long> exitedAt =
        ProcessHandle.of(firstPid).orElseThrow().onExit().thenApply(exited -> System.nanoTime());
    load.fire();
    // over HTTP the crash call reaches the server behind 150 others on as many connections: the
    // clock starts when the process is gone
    long crashedAt = exitedAt.get(10, TimeUnit.SECONDS);
    long lost = load.assertOutcome(Duration.ofSeconds(1), crashedAt);

    assertTrue(lost >= 1, "at least the crash call itself is lost");
    assertEquals("after the restart", echo(supervisor, "flow-2", "after the restart"));
    List<Long> starts = server.starts();
    assertEquals(2, starts.size(), "started again once: " + starts);
    assertNotEquals(firstPid, starts.get(1));
    assertTrue(ChildProcesses.isAlive(starts.get(1)), "the restarted server serves");
  }

  private static String echo(SessionSupervisor supervisor, String context, String message) {
    return CrashUnderLoad.echo(supervisor, context, SERVER, message);
  }
}
