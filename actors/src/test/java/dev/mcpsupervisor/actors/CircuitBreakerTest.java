package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The circuit's decisions, without actors: when sessions may open and what callers are told. */
class CircuitBreakerTest {

  private final CircuitBreaker circuit = new CircuitBreaker(3);

  @Test
  void closedOpensSessionsOpenRefusesThemHalfOpenAllowsOneProbeAtATime() {
    assertTrue(circuit.mayOpenSession(false), "closed: even while another session starts");
    assertFalse(circuit.attemptFailed("refused"));
    assertFalse(circuit.attemptFailed("refused"));
    assertTrue(circuit.attemptFailed("refused"), "the third consecutive failure opens it");
    assertTrue(circuit.open());
    assertFalse(circuit.mayOpenSession(true), "open: no session at all");
    circuit.halfOpen();
    assertTrue(circuit.mayOpenSession(true), "half-open: a probe when none is starting");
    assertFalse(circuit.mayOpenSession(false), "half-open: not a second probe");
    assertTrue(circuit.attemptFailed("still refused"), "a failed probe opens it again at once");
  }

  @Test
  void callersAreToldTheLastFailureOrThatAProbeIsUnderWay() {
    circuit.open();
    assertEquals("circuit open, a probe is under way", circuit.unavailableReason());
    circuit.attemptFailed("connection refused");
    assertEquals("connection refused", circuit.unavailableReason());
    assertTrue(circuit.close());
    assertTrue(circuit.isQuiet(), "closing forgets the failures");
  }
}
