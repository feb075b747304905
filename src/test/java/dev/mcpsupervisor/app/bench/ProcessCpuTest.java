package dev.mcpsupervisor.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ProcessCpuTest {

  @Test
  void readsUtimePlusStimeAfterACommandNameWithSpacesAndParentheses() {
    String stat =
        "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 3 4 20 0 30 0 100 0 0";
    assertEquals(325, ProcessCpu.ticksFromStat(stat));
  }

  @Test
  void thisProcessHasUsedSomeCpu() {
    assertTrue(new ProcessCpu(ProcessHandle.current().pid(), true).micros() > 0);
  }
}
