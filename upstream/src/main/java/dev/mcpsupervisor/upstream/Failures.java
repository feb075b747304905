package dev.mcpsupervisor.upstream;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/** The one place that looks behind the wrappers futures put around a failure. */
public final class Failures {

  private Failures() {}

  /** The failure behind any {@link CompletionException} and {@link ExecutionException} wrappers. */
  public static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /**
   * The unwrapped failure's message, or what it is when it has none: one line for logs and error
   * texts.
   */
  public static String describe(Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause.getMessage() != null) {
      return cause.getMessage();
    }
    return cause instanceof TimeoutException
        ? "no answer in time"
        : cause.getClass().getSimpleName();
  }
}
