package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * SIGHUP, sent to this JVM by {@code kill}, runs the reload and leaves the JVM running (installed
 * first: a SIGHUP without it would end the test's JVM); in a JVM started with SIGHUP ignored
 * ({@code nohup}), installing answers false and nothing is sent.
 */
class ReloadSignalTest {

  @Test
  @EnabledOnOs({OS.LINUX, OS.MAC})
  void sighupRunsTheReloadAndTheJvmGoesOn() throws Exception {
    CountDownLatch reloaded = new CountDownLatch(1);
    if (sighupIgnoredSinceStart()) {
      // started under nohup (a CI runner may be): the JVM keeps it ignored, and install says so
      assertFalse(ReloadSignal.install(reloaded::countDown), "SIGHUP is ignored here");
      return;
    }
    assertTrue(ReloadSignal.install(reloaded::countDown), "SIGHUP's handler installed");

    Process kill =
        new ProcessBuilder("kill", "-HUP", Long.toString(ProcessHandle.current().pid())).start();
    assertTrue(kill.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, kill.exitValue());

    assertTrue(reloaded.await(30, TimeUnit.SECONDS), "the reload ran");
  }

  /**
   * Whether this process ignores SIGHUP, by its SigIgn mask in /proc (signal 1 is its lowest bit).
   */
  private static boolean sighupIgnoredSinceStart() throws IOException {
    Path status = Path.of("/proc/self/status");
    if (!Files.isReadable(status)) {
      return false; // macOS: no /proc; a test JVM there is not started under nohup
    }
    return Files.readAllLines(status).stream()
        .filter(line -> line.startsWith("SigIgn:"))
        .map(line -> Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16))
        .anyMatch(mask -> (mask & 1L) != 0);
  }
}
