package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The supervisor over the real fixture as a Streamable HTTP server in its own process, killed and
 * started again.
 */
class StreamableHttpProcessTest {

  private static final String SERVER = "fixture-http";

  @AfterAll
  static void noProcessOutlivesTheTests() {
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void crashUnderLoadIsSeenAtOnceAndTheSessionComesBackWhenTheServerDoes() throws Exception {
    FixtureProcess first = FixtureProcess.startHttp();
    int port = URI.create(first.url()).getPort();
    FixtureProcess second = null;
    try (SessionSupervisor supervisor =
        SessionSupervisor.start(
            RealFixture.config(RealFixture.streamableHttp(SERVER, first.url())))) {
      assertEquals(first.pid(), RealFixture.pid(supervisor, "flow-1", SERVER));
      CrashUnderLoad load = new CrashUnderLoad(supervisor, "flow-1", SERVER);

      CompletableFuture<Long> exitedAt =
          first.process().onExit().thenApply(exited -> System.nanoTime());
      load.fire();
      // over HTTP the crash call reaches the server behind 150 others on as many connections: the
      // clock starts when the process is gone
      long crashedAt = exitedAt.get(10, TimeUnit.SECONDS);
      second = FixtureProcess.startHttp(port);
      long lost = load.assertOutcome(Duration.ofSeconds(1), crashedAt);

      assertTrue(lost >= 1, "at least the crash call itself is lost");
      assertEquals(
          "after the restart",
          RealFixture.text(
              RealFixture.await(
                  RealFixture.call(
                      supervisor,
                      "flow-2",
                      SERVER,
                      FixtureTools.ECHO,
                      "message",
                      "after the restart"),
                  RealFixture.REQUEST_TIMEOUT)));
      assertEquals(
          second.pid(),
          RealFixture.pid(supervisor, "flow-1", SERVER),
          "the restarted server serves");
    } finally {
      first.close();
      if (second != null) {
        second.close();
      }
    }
    assertFalse(ChildProcesses.isAlive(first.pid()));
    assertFalse(ChildProcesses.isAlive(second.pid()));
  }
}
