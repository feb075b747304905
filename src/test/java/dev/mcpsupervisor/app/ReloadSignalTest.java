package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * SIGHUP, sent to this JVM by {@code kill}, runs the reload and leaves the JVM running (installed
 * first: a SIGHUP without it would end the test's JVM).
 */
class ReloadSignalTest {

  @Test
  @EnabledOnOs({OS.LINUX, OS.MAC})
  void sighupRunsTheReloadAndTheJvmGoesOn() throws Exception {
    CountDownLatch reloaded = new CountDownLatch(1);
    assertTrue(ReloadSignal.install(reloaded::countDown), "SIGHUP's handler installed");

    Process kill =
        new ProcessBuilder("kill", "-HUP", Long.toString(ProcessHandle.current().pid())).start();
    assertTrue(kill.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, kill.exitValue());

    assertTrue(reloaded.await(30, TimeUnit.SECONDS), "the reload ran");
  }
}
