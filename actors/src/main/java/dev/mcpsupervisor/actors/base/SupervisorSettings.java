package dev.mcpsupervisor.actors.base;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * The supervisor's tuning, read once from {@code mcp-supervisor.supervisor} (defaults in
 * reference.conf).
 */
public record SupervisorSettings(
    int stashCapacity,
    Duration restartBackoffMin,
    Duration restartBackoffMax,
    double restartBackoffRandomFactor,
    Duration connectTimeout,
    Duration initializeTimeout,
    int circuitMaxFailures,
    Duration circuitCooldown,
    int evictAfterConsecutiveFailures,
    Duration pingInterval,
    Duration pingTimeout,
    Duration stillInitializingRetryMin,
    Duration stillInitializingRetryMax,
    Duration serverRequestTimeout,
    Duration askMargin,
    Duration acquireTimeout,
    Duration snapshotTimeout,
    Duration drainTimeout,
    Duration shutdownTimeout,
    Duration listCacheTtl,
    Duration inputGatherWindow) {

  public static final String PATH = "mcp-supervisor.supervisor";

  /** Reads the settings from a whole configuration (e.g. an actor system's). */
  public static SupervisorSettings fromConfig(Config root) {
    Config c = root.getConfig(PATH);
    return new SupervisorSettings(
        c.getInt("stashCapacity"),
        c.getDuration("restartBackoff.min"),
        c.getDuration("restartBackoff.max"),
        c.getDouble("restartBackoff.randomFactor"),
        c.getDuration("connectTimeout"),
        c.getDuration("initializeTimeout"),
        c.getInt("circuitBreaker.maxFailures"),
        c.getDuration("circuitBreaker.cooldown"),
        c.getInt("evictAfterConsecutiveFailures"),
        c.getDuration("pingInterval"),
        c.getDuration("pingTimeout"),
        c.getDuration("stillInitializingRetry.min"),
        c.getDuration("stillInitializingRetry.max"),
        c.getDuration("serverRequestTimeout"),
        c.getDuration("askMargin"),
        c.getDuration("acquireTimeout"),
        c.getDuration("snapshotTimeout"),
        c.getDuration("drainTimeout"),
        c.getDuration("shutdownTimeout"),
        c.getDuration("listCacheTtl"),
        c.getDuration("inputGatherWindow"));
  }

  /**
   * Exponential backoff: {@code min * 2^attempt}, capped at {@code max}, plus up to {@code
   * randomFactor} jitter.
   */
  static Duration backoff(
      Duration min, Duration max, double randomFactor, int attempt, double random) {
    long minMillis = Math.max(1, min.toMillis());
    long capped = Math.min(max.toMillis(), minMillis << Math.min(attempt, 30));
    return Duration.ofMillis((long) (capped * (1.0 + randomFactor * random)));
  }

  public Duration restartBackoff(int attempt, double random) {
    return backoff(
        restartBackoffMin, restartBackoffMax, restartBackoffRandomFactor, attempt, random);
  }

  /** The longest a shutdown can take: the drain, then closing every session. */
  public Duration shutdownBound() {
    return drainTimeout.plus(shutdownTimeout);
  }

  public Duration stillInitializingRetry(int attempt) {
    return backoff(stillInitializingRetryMin, stillInitializingRetryMax, 0.0, attempt, 0.0);
  }
}
