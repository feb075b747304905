package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StreamPermitsTest {

  @Test
  void hundredsOfRacingOpenersGetExactlyTheCap() throws Exception {
    StreamPermits permits = new StreamPermits(25);
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
      assertEquals(25, permits.held("caller-a"));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void eachCallerHasItsOwnCapAndAReleasedPermitCanBeTakenAgain() {
    StreamPermits permits = new StreamPermits(2);
    assertTrue(permits.tryAcquire("a"));
    assertTrue(permits.tryAcquire("a"));
    assertFalse(permits.tryAcquire("a"));
    assertTrue(permits.tryAcquire("b"), "another caller is not held back");
    permits.release("a");
    assertTrue(permits.tryAcquire("a"));
    permits.release("a");
    permits.release("a");
    assertEquals(0, permits.held("a"));
  }
}
