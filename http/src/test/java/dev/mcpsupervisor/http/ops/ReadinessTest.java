package dev.mcpsupervisor.http.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ReadinessTest {

  @Test
  void aSingleNodeIsReadyFromItsBindToItsStop() {
    Readiness readiness = new Readiness();
    assertEquals(Readiness.Probe.STOPPING, readiness.probe(), "not bound yet");
    readiness.ready();
    assertEquals(Readiness.Probe.READY, readiness.probe());
    readiness.stopping();
    assertEquals(Readiness.Probe.STOPPING, readiness.probe());
  }

  @Test
  void aBoundNodeIsJoiningUntilUpAndTakesRequestsMeanwhile() {
    AtomicBoolean up = new AtomicBoolean();
    Readiness readiness = new Readiness(up::get);
    readiness.ready();
    assertEquals(Readiness.Probe.JOINING, readiness.probe());
    assertTrue(readiness.isReady(), "a joining node serves what reaches it");
    up.set(true);
    assertEquals(Readiness.Probe.READY, readiness.probe());
    readiness.stopping();
    assertEquals(Readiness.Probe.STOPPING, readiness.probe(), "a stop wins over Up");
  }
}
