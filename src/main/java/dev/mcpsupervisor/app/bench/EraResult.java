package dev.mcpsupervisor.app.bench;

import java.util.OptionalLong;

/**
 * What one era's run measured.
 *
 * @param latency per call answered OK, microseconds
 * @param connect per session connected: initialize + notifications/initialized, or (stateless) the
 *     first call
 * @param cpuMicros the measured process's CPU time during the run, when a pid was given
 * @param firstProblem the first failed or wrong call's reason ("" when none)
 */
public record EraResult(
    Era era,
    long ok,
    long failed,
    long wrong,
    long elapsedNanos,
    LatencyStats latency,
    LatencyStats connect,
    OptionalLong cpuMicros,
    String firstProblem) {

  public long calls() {
    return ok + failed + wrong;
  }

  /** Calls answered OK per second of the whole run (connects included). */
  public double callsPerSecond() {
    return elapsedNanos == 0 ? 0 : ok * 1e9 / elapsedNanos;
  }

  /** CPU microseconds per call made; empty without a pid. */
  public OptionalLong cpuMicrosPerCall() {
    return cpuMicros.isPresent() && calls() > 0
        ? OptionalLong.of(cpuMicros.getAsLong() / calls())
        : OptionalLong.empty();
  }

  public boolean clean() {
    return failed == 0 && wrong == 0;
  }
}
