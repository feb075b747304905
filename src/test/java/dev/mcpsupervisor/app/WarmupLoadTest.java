package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WarmupLoadTest {

  @Test
  void aRoundIsTheCountRoundedToWholeSessionsInEachPhaseAndEra() {
    assertEquals(1_200, load(1_200).callsPerRound(), "300 per era and phase: 6 x 50, 100 x 3");
    // 1,250 per era and phase: 25 x 50, then 417 sessions of 3 (1,251)
    assertEquals(5_002, load(5_000).callsPerRound());
    assertEquals(2 * 1 + 2 * 1, load(1).callsPerRound(), "at least one call per phase and era");
  }

  private static WarmupLoad load(int calls) {
    return new WarmupLoad(new WarmupSettings(calls, Duration.ofSeconds(30), 0));
  }
}
