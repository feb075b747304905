package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.actors.connector.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureTools;
import java.time.Duration;
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
    try (SessionSupervisor supervisor = SessionSupervisor.start(RealFixture.config(RealFixture.stdio(SERVER, 0)))) {
      firstPid = RealFixture.pid(supervisor, "flow-1", SERVER);
      CrashUnderLoad load = new CrashUnderLoad(supervisor, "flow-1", SERVER);

      load.fire();
      long lost = load.assertOutcome(Duration.ofSeconds(1), load.crashSentAt);

      assertTrue(lost >= 1, "at least the crash call itself is lost");
      assertFalse(ChildProcesses.isAlive(firstPid), "the crashed process is gone");
      assertEquals("after the crash",
          RealFixture.text(RealFixture.await(
              RealFixture.call(supervisor, "flow-2", SERVER, FixtureTools.ECHO, "message", "after the crash"),
              RealFixture.REQUEST_TIMEOUT)));
      secondPid = RealFixture.pid(supervisor, "flow-1", SERVER);
      assertNotEquals(firstPid, secondPid, "a new process serves the session");
      assertTrue(ChildProcesses.isAlive(secondPid));
    }
    assertFalse(ChildProcesses.isAlive(secondPid), "close() ends the process it started");
    ChildProcesses.assertNoneAlive();
  }
}
