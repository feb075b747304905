package dev.mcpsupervisor.app.stdio;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * Notices that the process that started this one is gone: a desktop client that crashed or was
 * killed may leave stdin open (a grandchild holds the pipe), and its servers must not outlive it.
 * Polls the parent's liveness twice a second on a daemon thread.
 */
final class ParentWatch {

  private static final Duration EVERY = Duration.ofMillis(500);

  private ParentWatch() {}

  /** Runs {@code whenGone} once this process's parent is no longer alive (never without one). */
  static void start(Runnable whenGone) {
    Optional<ProcessHandle> parent = ProcessHandle.current().parent();
    if (parent.isEmpty()) {
      return;
    }
    ProcessHandle watched = parent.get();
    Thread watcher =
        new Thread(
            () -> {
              while (watched.isAlive()) {
                LockSupport.parkNanos(EVERY.toNanos());
              }
              whenGone.run();
            },
            "mcp-supervisor-parent-watch");
    watcher.setDaemon(true);
    watcher.start();
  }
}
