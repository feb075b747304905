package dev.mcpsupervisor.upstream;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The connectors' threads are daemons, so that they never keep a JVM alive. */
final class DaemonThreads {

  private static final long IDLE_SECONDS = 60;

  private DaemonThreads() {}

  static Thread start(String name, Runnable task) {
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  /** A cached pool of daemon threads named {@code prefix-1, prefix-2, ...}. */
  static ExecutorService cachedPool(String prefix) {
    return Executors.newCachedThreadPool(named(prefix));
  }

  /**
   * At most {@code threads} daemon threads named {@code prefix-1, ...} working off one queue, each
   * ending after a minute idle. For short tasks that never block: a busy thread takes the next task
   * from the queue, where a cached pool hands every task to a thread it must wake (or start).
   */
  static ExecutorService boundedPool(String prefix, int threads) {
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            IDLE_SECONDS,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            named(prefix));
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  private static ThreadFactory named(String prefix) {
    AtomicInteger counter = new AtomicInteger();
    return task -> {
      Thread thread = new Thread(task, prefix + "-" + counter.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
