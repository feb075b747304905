package dev.mcpsupervisor.http.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CallerLimitTest {

  @Test
  void aKeyAtItsCapIsRefusedUntilOneIsReleasedAndOtherKeysAreNotAffected() {
    CallerLimit limit = new CallerLimit(() -> 2);
    assertTrue(limit.tryAcquire("a"));
    assertTrue(limit.tryAcquire("a"));
    assertFalse(limit.tryAcquire("a"));
    assertEquals(2, limit.inFlight("a"));
    assertTrue(limit.tryAcquire("b"));
    limit.release("a");
    assertTrue(limit.tryAcquire("a"));
    limit.release("a");
    limit.release("a");
    limit.release("b");
    assertEquals(0, limit.keys(), "a key at zero is forgotten");
    limit.release("never"); // nothing to release: no effect
    assertEquals(0, limit.inFlight("never"));
  }

  @Test
  void hundredsOfRacingCallersNeverExceedTheCapAndLeaveNothingBehind() throws Exception {
    int cap = 8;
    int racers = 400;
    CallerLimit limit = new CallerLimit(() -> cap);
    AtomicInteger holding = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(16);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < racers; i++) {
        done.add(
            threads.submit(
                () -> {
                  start.await();
                  for (int round = 0; round < 50; round++) {
                    if (limit.tryAcquire("caller")) {
                      most.accumulateAndGet(holding.incrementAndGet(), Math::max);
                      holding.decrementAndGet();
                      limit.release("caller");
                    } else {
                      refused.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> future : done) {
        future.get(30, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    assertTrue(most.get() <= cap, () -> most.get() + " held at once, the cap is " + cap);
    assertEquals(0, limit.inFlight("caller"));
    assertEquals(0, limit.keys());
  }

  @Test
  void hundredsOfRacingOpenersGetExactlyTheCap() throws Exception {
    CallerLimit permits = new CallerLimit(() -> 25);
    int openers = 400;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(64);
    try {
      List<CompletableFuture<Boolean>> attempts = new ArrayList<>();
      for (int i = 0; i < openers; i++) {
        attempts.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    start.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return permits.tryAcquire("caller-a");
                },
                pool));
      }
      start.countDown();
      long granted = 0;
      for (CompletableFuture<Boolean> attempt : attempts) {
        granted += attempt.get(10, TimeUnit.SECONDS) ? 1 : 0;
      }
      assertEquals(25, granted);
      assertEquals(25, permits.inFlight("caller-a"));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void eachCallerHasItsOwnCapAndAReleasedPermitCanBeTakenAgain() {
    CallerLimit permits = new CallerLimit(() -> 2);
    assertTrue(permits.tryAcquire("a"));
    assertTrue(permits.tryAcquire("a"));
    assertFalse(permits.tryAcquire("a"));
    assertTrue(permits.tryAcquire("b"), "another caller is not held back");
    permits.release("a");
    assertTrue(permits.tryAcquire("a"));
    permits.release("a");
    permits.release("a");
    assertEquals(0, permits.inFlight("a"));
  }

  @Test
  void aPermitIsGivenBackOnceHoweverOftenItsReleaseRuns() {
    CallerLimit limit = new CallerLimit(() -> 1);
    Runnable release = limit.acquire("a").orElseThrow();
    assertTrue(limit.acquire("a").isEmpty(), "the cap is held");
    release.run();
    release.run();
    assertEquals(0, limit.inFlight("a"));
    Runnable again = limit.acquire("a").orElseThrow();
    release.run(); // an old permit's release does not give back the new one
    assertEquals(1, limit.inFlight("a"));
    again.run();
  }
}
