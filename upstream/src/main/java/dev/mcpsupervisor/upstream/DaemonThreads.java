package dev.mcpsupervisor.upstream;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** The connectors' threads are daemons, so that they never keep a JVM alive. */
final class DaemonThreads {

  private DaemonThreads() {}

  static Thread start(String name, Runnable task) {
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  /** A cached pool of daemon threads named {@code prefix-1, prefix-2, ...}. */
  static ExecutorService cachedPool(String prefix) {
    AtomicInteger counter = new AtomicInteger();
    ThreadFactory factory =
        task -> {
          Thread thread = new Thread(task, prefix + "-" + counter.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        };
    return Executors.newCachedThreadPool(factory);
  }
}
