package dev.mcpsupervisor.app;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Whether the JIT has settled under the warm-up's load ({@link Warmup}): after each round of calls,
 * another round runs while the JIT compiled for more than a share of the round's time, until a cap.
 * A fixed count of calls ends with many hot methods still climbing the tiers (compiled by C1
 * without profiles while the C2 queue is long, then with profiles, then by C2), and the first calls
 * after ready would pay for that climb (docs/benchmarks.md, "What C2 compiles after ready").
 */
final class JitSettling {

  private final LongSupplier compilationMillis;
  private final LongSupplier nanoClock;
  private final double settledShare;
  private final long deadlineNanos;
  private long roundStartNanos;
  private long roundStartCompilationMillis;

  /**
   * @param compilationMillis the JIT's total compilation time so far, in milliseconds
   * @param nanoClock {@link System#nanoTime()} or a test's
   * @param settledShare settled when a round's compilation time is at most this share of its time
   * @param cap no round begins that would end (were it as long as the last) after this long from
   *     now
   */
  JitSettling(
      LongSupplier compilationMillis, LongSupplier nanoClock, double settledShare, Duration cap) {
    this.compilationMillis = compilationMillis;
    this.nanoClock = nanoClock;
    this.settledShare = settledShare;
    this.roundStartNanos = nanoClock.getAsLong();
    this.deadlineNanos = roundStartNanos + cap.toNanos();
    this.roundStartCompilationMillis = compilationMillis.getAsLong();
  }

  /**
   * This JVM's JIT; one that reports no compilation time counts as settled after the first round.
   */
  static JitSettling ofThisJvm(double settledShare, Duration cap) {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    LongSupplier millis =
        jit != null && jit.isCompilationTimeMonitoringSupported()
            ? jit::getTotalCompilationTime
            : () -> 0;
    return new JitSettling(millis, System::nanoTime, settledShare, cap);
  }

  /**
   * Called at the end of each round: true when another should run (the JIT was still busy in this
   * one, and another as long would end by the cap); begins the next round's measure.
   */
  boolean anotherRound() {
    long now = nanoClock.getAsLong();
    long compiled = compilationMillis.getAsLong();
    long roundNanos = now - roundStartNanos;
    boolean busy = compiled - roundStartCompilationMillis > settledShare * roundNanos / 1e6;
    roundStartNanos = now;
    roundStartCompilationMillis = compiled;
    // a round as long as the last would end by the cap (the warm-up is cut short at it)
    return busy && now + roundNanos - deadlineNanos <= 0;
  }
}
