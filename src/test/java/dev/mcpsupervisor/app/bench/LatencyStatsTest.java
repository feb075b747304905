package dev.mcpsupervisor.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class LatencyStatsTest {

  @Test
  void nearestRankPercentilesOfOneToAHundred() {
    long[] shuffled = LongStream.rangeClosed(1, 100).map(i -> (i * 37) % 100 + 1).toArray();
    assertEquals(new LatencyStats(100, 50, 90, 99, 100), LatencyStats.of(shuffled));
  }

  @Test
  void smallSetsRoundUpToASample() {
    assertEquals(new LatencyStats(3, 20, 30, 30, 30), LatencyStats.of(new long[] {30, 10, 20}));
    assertEquals(new LatencyStats(1, 7, 7, 7, 7), LatencyStats.of(new long[] {7}));
  }

  @Test
  void emptySetIsAllZero() {
    assertEquals(new LatencyStats(0, 0, 0, 0, 0), LatencyStats.of(new long[0]));
  }

  @Test
  void doesNotReorderTheCallersSamples() {
    long[] samples = {3, 1, 2};
    LatencyStats.of(samples);
    assertEquals(3, samples[0]);
  }
}
