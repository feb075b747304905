package dev.mcpsupervisor.testkit;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Processes a test left behind, read from the OS process table (this JVM's descendants), not from
 * anyone's bookkeeping.
 */
public final class ProcessLeaks {

  /** How long processes get to exit after their owner closed. */
  public static final Duration SETTLE = Duration.ofSeconds(10);

  private ProcessLeaks() {}

  /** The pids of this JVM's living descendants. */
  public static Set<Long> descendants() {
    return ProcessHandle.current()
        .descendants()
        .filter(ProcessHandle::isAlive)
        .map(ProcessHandle::pid)
        .collect(Collectors.toSet());
  }

  /**
   * Fails unless every descendant not in {@code before} exits within {@code settle}; those still
   * alive then are killed (by pid, with their descendants) and named.
   */
  public static void assertNoneSince(Set<Long> before, Duration settle) {
    List<ProcessHandle> started =
        ProcessHandle.current()
            .descendants()
            .filter(process -> !before.contains(process.pid()))
            .toList();
    long deadline = System.nanoTime() + settle.toNanos();
    for (ProcessHandle process : started) {
      try {
        process.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (Exception e) {
        // still alive at the deadline: named below
      }
    }
    List<ProcessHandle> alive = started.stream().filter(ProcessHandle::isAlive).toList();
    if (alive.isEmpty()) {
      return;
    }
    String named =
        alive.stream()
            .map(process -> process.pid() + " (" + process.info().commandLine().orElse("?") + ")")
            .collect(Collectors.joining(", "));
    alive.forEach(
        process -> {
          process.descendants().forEach(ProcessHandle::destroyForcibly);
          process.destroyForcibly();
        });
    throw new AssertionError(
        "the test left " + alive.size() + " process(es) alive after " + settle + ": " + named);
  }
}
