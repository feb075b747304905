package dev.mcpsupervisor.app.bench;

import java.util.Arrays;

/**
 * Percentiles of a set of durations in microseconds, by the nearest-rank method: p50 of 1..100 is
 * 50, p99 is 99, and the max is the largest sample. Empty sets answer 0 everywhere.
 */
public record LatencyStats(int count, long p50, long p90, long p99, long max) {

  public static LatencyStats of(long[] micros) {
    if (micros.length == 0) {
      return new LatencyStats(0, 0, 0, 0, 0);
    }
    long[] sorted = micros.clone();
    Arrays.sort(sorted);
    return new LatencyStats(
        sorted.length,
        percentile(sorted, 50),
        percentile(sorted, 90),
        percentile(sorted, 99),
        sorted[sorted.length - 1]);
  }

  /** Nearest rank: the smallest sample with at least {@code percent}% of samples at or below it. */
  static long percentile(long[] sorted, int percent) {
    int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
    return sorted[Math.max(rank, 1) - 1];
  }
}
