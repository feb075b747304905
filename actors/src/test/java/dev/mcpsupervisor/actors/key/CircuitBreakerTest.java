package dev.mcpsupervisor.actors.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import org.junit.jupiter.api.Test;

/** The circuit's decisions, without actors: when sessions may open and what callers are told. */
class CircuitBreakerTest {

  private final CircuitBreaker circuit = new CircuitBreaker("srv", 3);

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
  void callersAreToldTheLastFailuresRefOrThatAProbeIsUnderWay() {
    circuit.open();
    assertEquals(
        "upstream srv unavailable: circuit open, a probe is under way",
        circuit.unavailable().message());
    circuit.attemptFailed("connection refused by http://h:1/mcp/sk-CANARY");
    JsonRpcError refused = circuit.unavailable();
    assertTrue(refused.message().matches("upstream srv unavailable \\(ref [0-9a-f]{8}\\)"));
    assertEquals(refused, circuit.unavailable(), "one ref however many calls are refused");
    assertTrue(circuit.close());
    assertTrue(circuit.isQuiet(), "closing forgets the failures");
  }
}
