package dev.mcpsupervisor.upstream;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs its tasks one at a time, in submission order, on the threads of a shared pool: a strand that
 * owns some state without a lock, so that it can call out (send, deliver) without holding one.
 */
final class SerialExecutor implements Executor {

  private static final Logger log = LoggerFactory.getLogger(SerialExecutor.class);

  private final Executor pool;
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();

  SerialExecutor(Executor pool) {
    this.pool = pool;
  }

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
    schedule();
  }

  private void schedule() {
    if (!tasks.isEmpty() && scheduled.compareAndSet(false, true)) {
      pool.execute(this::drain);
    }
  }

  private void drain() {
    try {
      for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
        try {
          task.run();
        } catch (RuntimeException e) {
          log.error("a serial task failed", e);
        }
      }
    } finally {
      scheduled.set(false);
      schedule(); // a task added after the last poll, before the flag was cleared
    }
  }
}
