package dev.mcpsupervisor.testkit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What the extension checks after each test: processes started during it are gone. */
class ProcessLeaksTest {

  @Test
  void aProcessLeftAliveFailsTheCheckIsNamedAndKilled() throws Exception {
    Set<Long> before = ProcessLeaks.descendants();
    Process leaked = new ProcessBuilder("sleep", "600").start();

    AssertionError failure =
        assertThrows(
            AssertionError.class,
            () -> ProcessLeaks.assertNoneSince(before, Duration.ofMillis(200)));

    assertTrue(failure.getMessage().contains(Long.toString(leaked.pid())), failure.getMessage());
    assertTrue(leaked.waitFor(10, TimeUnit.SECONDS), "the leaked process is killed");
    assertFalse(leaked.isAlive());
  }

  @Test
  void aProcessThatEndedPassesTheCheck() throws Exception {
    Set<Long> before = ProcessLeaks.descendants();
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor(10, TimeUnit.SECONDS);

    assertDoesNotThrow(() -> ProcessLeaks.assertNoneSince(before, Duration.ofMillis(200)));
  }
}
