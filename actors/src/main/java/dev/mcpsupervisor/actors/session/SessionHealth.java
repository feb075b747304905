package dev.mcpsupervisor.actors.session;

/**
 * What a session reports to its key actor about itself, once per change: that its requests keep
 * failing (evict it), and whether it is full (open another session only then).
 */
final class SessionHealth {

  private final int evictAfterConsecutiveFailures;
  private int consecutiveFailures;
  private boolean reportedFailing;
  private boolean reportedSaturated;

  SessionHealth(int evictAfterConsecutiveFailures) {
    this.evictAfterConsecutiveFailures = evictAfterConsecutiveFailures;
  }

  /**
   * A request failed (timed out, could not be sent): true the one time the count reaches the
   * threshold.
   */
  boolean failed() {
    consecutiveFailures++;
    if (consecutiveFailures >= evictAfterConsecutiveFailures && !reportedFailing) {
      reportedFailing = true;
      return true;
    }
    return false;
  }

  int consecutiveFailures() {
    return consecutiveFailures;
  }

  void answered() {
    consecutiveFailures = 0;
  }

  /** A new connection is ready: failures of the old one no longer count. */
  void reconnected() {
    consecutiveFailures = 0;
    reportedFailing = false;
  }

  /** True when {@code saturated} differs from what was reported last (report it now). */
  boolean saturationChanged(boolean saturated) {
    if (saturated == reportedSaturated) {
      return false;
    }
    reportedSaturated = saturated;
    return true;
  }
}
