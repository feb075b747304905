package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.UpstreamDiagnostics;
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
   * The unwrapped failure's message (URLs in it cut to scheme://host:port), or what it is when it
   * has none: one line for logs.
   */
  public static String describe(Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause.getMessage() != null) {
      return UpstreamDiagnostics.redact(cause.getMessage());
    }
    return cause instanceof TimeoutException
        ? "no answer in time"
        : cause.getClass().getSimpleName();
  }
}
