package dev.mcpsupervisor.app.runtime;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Awaits and (as a last resort) kills processes that the application (the warm-up's demo server,
 * the chaos runner's gateway) or a test caused to exist, so none outlives its owner.
 */
public final class ChildProcesses {

  private ChildProcesses() {}

  /** True when every process has exited within the timeout. */
  public static boolean awaitExit(List<ProcessHandle> processes, Duration timeout) {
    CompletableFuture<?>[] exits =
        processes.stream().map(ProcessHandle::onExit).toArray(CompletableFuture[]::new);
    try {
      CompletableFuture.allOf(exits).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException | ExecutionException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Ends a process and its descendants: TERM, then KILL what is left after the grace period.
   * Idempotent.
   */
  public static void end(Process process, Duration grace) {
    List<ProcessHandle> tree =
        Stream.concat(Stream.of(process.toHandle()), process.descendants()).toList();
    process.destroy();
    if (!awaitExit(tree, grace)) {
      kill(tree);
    }
  }

  /** Kills the processes and their descendants, and waits a bounded time for them to go. */
  public static void kill(List<ProcessHandle> processes) {
    for (ProcessHandle process : processes) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
    awaitExit(processes, Duration.ofSeconds(10));
  }
}
