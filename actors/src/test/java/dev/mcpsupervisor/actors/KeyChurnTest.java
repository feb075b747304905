package dev.mcpsupervisor.actors;

import static dev.mcpsupervisor.actors.TestSupervisor.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * 100,000 acquire/release cycles over 10,000 server keys, each cycle its own context: once all are
 * released, no key actor is left and the heap holds nothing per cycle (a leaked entry per context
 * or key would show as megabytes).
 */
class KeyChurnTest {

  private static final int KEYS = 10_000;
  private static final int CYCLES = 100_000;

  /** Cycles in flight at once. */
  private static final int RACERS = 200;

  /**
   * What the heap may grow by between 10,000 and 100,000 cycles: a leak of even 64 bytes a cycle
   * would be 5.8 MB.
   */
  private static final long HEAP_MARGIN_BYTES = 4L * 1024 * 1024;

  @Test
  void churningLeasesOverManyKeysLeavesNoKeyActorAndNoState() throws Exception {
    ServerConfig[] servers =
        IntStream.range(0, KEYS)
            .mapToObj(key -> TestSupervisor.server(server(key), Isolation.CONTEXT, 4, 1000))
            .toArray(ServerConfig[]::new);
    try (TestSupervisor test = TestSupervisor.start(servers)) {
      cycles(test, 0, KEYS); // warm-up: every key once, the classes and pools in place
      long before = heapAfterGc(test);

      cycles(test, KEYS, CYCLES);
      long after = heapAfterGc(test);

      assertTrue(
          after - before < HEAP_MARGIN_BYTES,
          () ->
              String.format(
                  "the heap grew by %d bytes over %d cycles (%.1f per cycle)",
                  after - before, CYCLES - KEYS, (double) (after - before) / (CYCLES - KEYS)));
    }
  }

  private static String server(int key) {
    return "key-" + key;
  }

  /** Cycles {@code from} to {@code to}, {@link #RACERS} at a time; then no key actor is left. */
  private static void cycles(TestSupervisor test, int from, int to) {
    for (int start = from; start < to; start += RACERS) {
      List<CompletableFuture<Void>> racing = new ArrayList<>();
      for (int cycle = start; cycle < Math.min(to, start + RACERS); cycle++) {
        String context = "context-" + cycle;
        String server = server(cycle % KEYS);
        racing.add(
            test.supervisor
                .acquire(context, server)
                .thenCompose(ready -> test.supervisor.release(context, server))
                .toCompletableFuture());
      }
      await(CompletableFuture.allOf(racing.toArray(CompletableFuture[]::new)));
    }
    test.awaitAssert(() -> assertTrue(test.snapshot().keys().isEmpty(), "no key actor is left"));
  }

  /** Heap used after full GCs, the test's own record of connections dropped first. */
  private static long heapAfterGc(TestSupervisor test) throws InterruptedException {
    test.connector.connections.clear();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      if (now >= used) {
        return now;
      }
      used = now;
    }
    return used;
  }
}
