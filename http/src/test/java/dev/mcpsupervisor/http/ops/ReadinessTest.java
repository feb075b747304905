package dev.mcpsupervisor.http.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
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
    Readiness readiness = new Readiness(up::get, CompletableFuture.completedFuture(null));
    readiness.ready();
    assertEquals(Readiness.Probe.JOINING, readiness.probe());
    assertTrue(readiness.isReady(), "a joining node serves what reaches it");
    up.set(true);
    assertEquals(Readiness.Probe.READY, readiness.probe());
    readiness.stopping();
    assertEquals(Readiness.Probe.STOPPING, readiness.probe(), "a stop wins over Up");
  }

  @Test
  void aBoundNodeIsWarmingUntilItsWarmUpIsOverAndTakesRequestsMeanwhile() {
    AtomicBoolean up = new AtomicBoolean(true);
    CompletableFuture<Void> warmedUp = new CompletableFuture<>();
    Readiness readiness = new Readiness(up::get, warmedUp);
    readiness.ready();
    assertEquals(Readiness.Probe.WARMING, readiness.probe());
    assertTrue(readiness.isReady(), "a warming gateway serves every request");
    up.set(false);
    assertEquals(Readiness.Probe.WARMING, readiness.probe(), "warming before joining");
    warmedUp.completeExceptionally(new IllegalStateException("a failed warm-up is over too"));
    assertEquals(Readiness.Probe.JOINING, readiness.probe());
    up.set(true);
    assertEquals(Readiness.Probe.READY, readiness.probe());
    readiness.stopping();
    assertEquals(Readiness.Probe.STOPPING, readiness.probe());
  }
}
