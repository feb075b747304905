package dev.mcpsupervisor.upstream;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a process together with its descendants: TERM to all, a grace period, then KILL to whatever
 * is left.
 */
final class ProcessTree {

  private static final Logger log = LoggerFactory.getLogger(ProcessTree.class);

  /**
   * After KILL the kernel needs only moments; this bound only keeps a close from hanging on an
   * unkillable process.
   */
  private static final Duration AFTER_KILL = Duration.ofSeconds(5);

  private static final long POLL_MILLIS = 20;

  private ProcessTree() {}

  /**
   * The process and all its descendants, collected now: once the parent is dead its children are
   * re-parented and can no longer be found from it.
   */
  static List<ProcessHandle> snapshot(ProcessHandle root) {
    return Stream.concat(Stream.of(root), root.descendants()).toList();
  }

  /**
   * TERMs every process of {@code tree}, KILLs those alive after {@code grace}; completes when all
   * are gone.
   */
  static CompletableFuture<Void> terminate(List<ProcessHandle> tree, Duration grace) {
    tree.forEach(ProcessHandle::destroy);
    return allExited(tree)
        .completeOnTimeout(null, grace.toMillis(), TimeUnit.MILLISECONDS)
        .thenCompose(
            afterGrace -> {
              List<ProcessHandle> remaining = tree.stream().filter(ProcessHandle::isAlive).toList();
              if (remaining.isEmpty()) {
                return CompletableFuture.completedFuture(null);
              }
              log.debug(
                  "killing {} process(es) still alive after a grace period of {}",
                  remaining.size(),
                  grace);
              remaining.forEach(ProcessHandle::destroyForcibly);
              return allExited(remaining)
                  .completeOnTimeout(null, AFTER_KILL.toMillis(), TimeUnit.MILLISECONDS)
                  .thenRun(() -> warnAboutSurvivors(remaining));
            });
  }

  /**
   * Completes once none of {@code processes} is alive. Polled: the JDK's {@code onExit()} of a
   * process that is not our own child (a grandchild) polls too, but only every 300 ms and slower.
   */
  private static CompletableFuture<Void> allExited(List<ProcessHandle> processes) {
    CompletableFuture<Void> exited = new CompletableFuture<>();
    pollUntilExited(processes, exited);
    return exited;
  }

  private static void pollUntilExited(
      List<ProcessHandle> processes, CompletableFuture<Void> exited) {
    if (exited.isDone()) {
      return; // the caller gave up waiting
    }
    List<ProcessHandle> alive = processes.stream().filter(ProcessHandle::isAlive).toList();
    if (alive.isEmpty()) {
      exited.complete(null);
    } else {
      CompletableFuture.delayedExecutor(POLL_MILLIS, TimeUnit.MILLISECONDS)
          .execute(() -> pollUntilExited(alive, exited));
    }
  }

  private static void warnAboutSurvivors(List<ProcessHandle> killed) {
    List<Long> alive =
        killed.stream().filter(ProcessHandle::isAlive).map(ProcessHandle::pid).toList();
    if (!alive.isEmpty()) {
      log.warn("processes {} are still alive {} after KILL", alive, AFTER_KILL);
    }
  }
}
