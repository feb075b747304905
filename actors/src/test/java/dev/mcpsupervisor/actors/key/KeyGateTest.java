package dev.mcpsupervisor.actors.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The passivation handshake of key actors, without actors. */
class KeyGateTest {

  @Test
  void aKeyActorIsStoppedOnlyIfItHasProcessedEverythingSentToIt() {
    KeyGate gate = new KeyGate();
    gate.count(); // the router's message
    gate.processed();
    long reported = gate.idleReport().orElseThrow();
    assertTrue(gate.pass(), "a caller's leased call on its way while the idle report travels");
    assertFalse(gate.closeAt(reported), "the call on its way keeps the key actor");
    gate.processed();
    assertTrue(gate.closeAt(gate.idleReport().orElseThrow()));
    assertFalse(gate.pass(), "closed: a caller goes through the router");
  }

  @Test
  void aKeyActorReportsEachCountOnce() {
    KeyGate gate = new KeyGate();
    assertEquals(OptionalLong.of(0), gate.idleReport());
    assertEquals(
        OptionalLong.empty(), gate.idleReport(), "nothing new since: the router's answer stands");
    gate.count();
    gate.processed();
    assertEquals(OptionalLong.of(1), gate.idleReport());
  }

  @Test
  void theRouterStillReachesAKeyActorThatClosedItsGate() {
    KeyGate gate = new KeyGate();
    gate.close(); // shutting down
    assertFalse(gate.pass());
    gate.count(); // a cancel of a call it drains
    assertFalse(gate.drained(), "the cancel is on its way");
    gate.processed();
    assertTrue(gate.drained());
  }
}
