package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The warm-up's end: rounds go on while the JIT is busy, and stop once it settles or at the cap.
 */
class JitSettlingTest {

  private static final long SECOND = 1_000_000_000L;

  private final AtomicLong compilationMillis = new AtomicLong(5_000);
  private final AtomicLong clock = new AtomicLong(42 * SECOND);

  private JitSettling settling(Duration cap) {
    return new JitSettling(compilationMillis::get, clock::get, 0.1, cap);
  }

  /** A round of 10 s in which the JIT compiled for this long. */
  private void round(long compiledMillis) {
    clock.addAndGet(10 * SECOND);
    compilationMillis.addAndGet(compiledMillis);
  }

  @Test
  void anotherRoundWhileTheJitIsBusyAndNoneOnceItSettles() {
    JitSettling settling = settling(Duration.ofMinutes(5));

    round(4_000);
    assertTrue(settling.anotherRound(), "40% of the round compiling");
    round(1_500);
    assertTrue(settling.anotherRound(), "15%");
    round(900);
    assertFalse(settling.anotherRound(), "9%: settled");
  }

  @Test
  void aJitThatNeverSettlesEndsByTheCap() {
    JitSettling settling = settling(Duration.ofSeconds(35));

    round(5_000);
    assertTrue(settling.anotherRound(), "10 s of 35");
    round(5_000);
    assertTrue(settling.anotherRound(), "20 s: another round ends at 30 s");
    round(5_000);
    assertFalse(
        settling.anotherRound(), "30 s: another 10 s round would end past the cap, busy as it is");
  }

  @Test
  void eachRoundIsMeasuredOnItsOwn() {
    JitSettling settling = settling(Duration.ofMinutes(5));

    round(9_000);
    assertTrue(settling.anotherRound());
    // the first round's compilations do not count again
    round(500);
    assertFalse(settling.anotherRound());
  }
}
