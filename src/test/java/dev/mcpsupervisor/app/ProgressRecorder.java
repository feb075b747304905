package dev.mcpsupervisor.app;

import io.modelcontextprotocol.spec.McpSchema.ProgressNotification;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Collects progress notifications an SDK client receives. The SDK hands them to the consumer on its
 * own threads, so they may still be on their way when the call's result is back ({@link #await}
 * waits for them, bounded), and they may reach the consumer out of order even when the server sent
 * them in order: values are compared sorted.
 */
final class ProgressRecorder implements Consumer<ProgressNotification> {

  private final List<ProgressNotification> received = new ArrayList<>();

  @Override
  public synchronized void accept(ProgressNotification notification) {
    received.add(notification);
    notifyAll();
  }

  /**
   * The progress values for this token, sorted, once {@code count} have arrived or the timeout has
   * passed.
   */
  synchronized List<Double> await(Object token, int count, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (progressOf(token).size() < count) {
      long remainingMillis = (deadline - System.nanoTime()) / 1_000_000;
      if (remainingMillis <= 0) {
        break;
      }
      wait(remainingMillis);
    }
    return progressOf(token);
  }

  private List<Double> progressOf(Object token) {
    List<Double> values = new ArrayList<>();
    for (ProgressNotification notification : received) {
      if (token.equals(notification.progressToken())) {
        values.add(notification.progress());
      }
    }
    values.sort(null);
    return values;
  }
}
