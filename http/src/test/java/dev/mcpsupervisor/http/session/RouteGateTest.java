package dev.mcpsupervisor.http.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RouteGateTest {

  @Test
  void anIdleSessionClosesOnlyWithNothingOnItsWay() {
    RouteGate gate = new RouteGate();
    assertTrue(gate.pass());
    assertFalse(gate.closeIfIdle()); // one passed, none processed
    gate.processed();
    assertTrue(gate.closeIfIdle());
    assertFalse(gate.pass());
    assertFalse(gate.closeIfIdle()); // closed once
    assertTrue(gate.drained());
  }

  @Test
  void activityRestartsTheIdleTime() throws Exception {
    RouteGate gate = new RouteGate();
    assertTrue(gate.idleFor(java.time.Duration.ZERO));
    assertFalse(gate.idleFor(java.time.Duration.ofMinutes(5)), "just made: active now");
    long before = System.nanoTime();
    while (System.nanoTime() - before < 2_000_000) {
      Thread.onSpinWait(); // two milliseconds pass
    }
    assertTrue(gate.idleFor(java.time.Duration.ofMillis(1)));
    gate.pass();
    gate.processedActivity();
    assertFalse(gate.idleFor(java.time.Duration.ofMinutes(1)));
    assertTrue(gate.closeIfIdle(), "what passed was processed");
  }

  @Test
  void anEndedSessionIsDrainedOnceItProcessedWhatPassed() {
    RouteGate gate = new RouteGate();
    assertFalse(gate.drained()); // open
    gate.pass();
    gate.pass();
    gate.close();
    assertFalse(gate.pass());
    gate.processed();
    assertFalse(gate.drained());
    gate.processed();
    assertTrue(gate.drained());
  }

  @Test
  void whatPassesBeforeAConcurrentCloseIsCountedExactly() throws Exception {
    RouteGate gate = new RouteGate();
    AtomicInteger passed = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      Thread thread =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int i = 0; i < 10_000 && gate.pass(); i++) {
                  passed.incrementAndGet();
                }
              });
      thread.start();
      threads.add(thread);
    }
    start.countDown();
    gate.close();
    for (Thread thread : threads) {
      thread.join();
    }
    for (int i = 0; i < passed.get() - 1; i++) {
      gate.processed();
    }
    assertEquals(passed.get() > 0, !gate.drained());
    if (passed.get() > 0) {
      gate.processed();
    }
    assertTrue(gate.drained());
  }
}
