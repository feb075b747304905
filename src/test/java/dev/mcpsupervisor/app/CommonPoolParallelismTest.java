package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class CommonPoolParallelismTest {

  @Test
  void raisesTheDefaultOfASmallMachineToTwo() {
    assertEquals(OptionalInt.of(2), CommonPoolParallelism.parallelismToSet(1, null));
    assertEquals(OptionalInt.of(2), CommonPoolParallelism.parallelismToSet(2, null));
  }

  @Test
  void leavesTheDefaultOfALargerMachine() {
    assertEquals(OptionalInt.empty(), CommonPoolParallelism.parallelismToSet(3, null));
    assertEquals(OptionalInt.empty(), CommonPoolParallelism.parallelismToSet(64, null));
  }

  @Test
  void theOperatorsSettingWins() {
    assertEquals(OptionalInt.empty(), CommonPoolParallelism.parallelismToSet(2, "1"));
  }
}
