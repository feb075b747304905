package dev.mcpsupervisor.app;

import java.util.OptionalInt;

/**
 * Gives the JVM's common ForkJoinPool at least two threads. On a machine of one or two cores its
 * parallelism defaults to one, and then every {@code *Async} completion without an executor runs on
 * a brand-new thread (CompletableFuture's thread-per-task fallback). {@code java.net.http}'s {@code
 * sendAsync} completes every response that way, so each call to a Streamable HTTP upstream started
 * and ended a thread. Must run before anything touches ForkJoinPool: the JVM reads the property
 * once, when the class loads.
 */
final class CommonPoolParallelism {

  static final String PROPERTY = "java.util.concurrent.ForkJoinPool.common.parallelism";
  static final int MINIMUM = 2;

  private CommonPoolParallelism() {}

  /** Sets the property when the operator did not and the default would fall below the minimum. */
  static void ensureMinimum() {
    parallelismToSet(Runtime.getRuntime().availableProcessors(), System.getProperty(PROPERTY))
        .ifPresent(parallelism -> System.setProperty(PROPERTY, Integer.toString(parallelism)));
  }

  /**
   * The parallelism to set, if any: none when {@code configured} is set (the operator's choice
   * wins), else the minimum when the JVM's default (processors - 1) is below it.
   */
  static OptionalInt parallelismToSet(int processors, String configured) {
    if (configured != null || processors - 1 >= MINIMUM) {
      return OptionalInt.empty();
    }
    return OptionalInt.of(MINIMUM);
  }
}
