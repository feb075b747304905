package dev.mcpsupervisor.actors.connector;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Checks on the OS process table, not on anyone's bookkeeping. */
public final class ChildProcesses {

  private static final Duration SETTLE = Duration.ofSeconds(10);

  private ChildProcesses() {}

  /** Fails unless every process this JVM started (and their descendants) is gone within a few seconds. */
  public static void assertNoneAlive() {
    List<ProcessHandle> alive = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList();
    for (ProcessHandle process : alive) {
      try {
        process.onExit().get(SETTLE.toMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        fail("process " + process.pid() + " (" + process.info().commandLine().orElse("?") + ") is still alive");
      }
    }
  }

  public static boolean isAlive(long pid) {
    Optional<ProcessHandle> process = ProcessHandle.of(pid);
    return process.isPresent() && process.get().isAlive();
  }

  /** Waits (bounded) until {@code pid} has at least {@code count} living descendants; returns them. */
  public static List<ProcessHandle> awaitDescendants(long pid, int count) {
    ProcessHandle parent = ProcessHandle.of(pid).orElseThrow(() -> new AssertionError("no process " + pid));
    long deadline = System.nanoTime() + SETTLE.toNanos();
    while (System.nanoTime() < deadline) {
      List<ProcessHandle> descendants = parent.descendants().filter(ProcessHandle::isAlive).toList();
      if (descendants.size() >= count) {
        return descendants;
      }
      // polling the process table: there is no event for "a process forked"
      try {
        TimeUnit.MILLISECONDS.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return fail("process " + pid + " did not get " + count + " descendants within " + SETTLE);
  }
}
