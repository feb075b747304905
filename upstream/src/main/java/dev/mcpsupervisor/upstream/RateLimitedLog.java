package dev.mcpsupervisor.upstream;

import org.slf4j.Logger;

/**
 * Logs at most {@code perSecond} lines a second for one source (a chatty upstream must not flood
 * the log); what it drops is counted and reported with the next line it lets through. Thread-safe.
 */
final class RateLimitedLog {

  private static final long WINDOW_NANOS = 1_000_000_000L;

  private final Logger log;
  private final int perSecond;
  private long windowStart = System.nanoTime();
  private int loggedInWindow;
  private long dropped;

  RateLimitedLog(Logger log, int perSecond) {
    this.log = log;
    this.perSecond = perSecond;
  }

  void info(String format, Object... arguments) {
    if (log.isInfoEnabled() && admit()) {
      log.info(format, arguments);
    }
  }

  void warn(String format, Object... arguments) {
    if (log.isWarnEnabled() && admit()) {
      log.warn(format, arguments);
    }
  }

  private synchronized boolean admit() {
    long now = System.nanoTime();
    if (now - windowStart >= WINDOW_NANOS) {
      windowStart = now;
      loggedInWindow = 0;
    }
    if (loggedInWindow >= perSecond) {
      dropped++;
      return false;
    }
    loggedInWindow++;
    if (dropped > 0) {
      log.warn("{} lines were not logged (more than {} a second)", dropped, perSecond);
      dropped = 0;
    }
    return true;
  }
}
