package dev.mcpsupervisor.app;

import com.typesafe.config.Config;
import dev.mcpsupervisor.protocol.config.ConfigException;
import java.time.Duration;

/**
 * How much the gateway warms up once it listens ({@link Warmup}).
 *
 * @param calls tool calls through the private warm-up gateway, split between the protocol eras; 0:
 *     no warm-up
 * @param maxDuration the warm-up is cut short after this long and the gateway is ready anyway
 * @param settledShare another round of {@code calls} runs while the JIT compiled for more than this
 *     share of the last round's time ({@link JitSettling}); 0: one round
 */
record WarmupSettings(int calls, Duration maxDuration, double settledShare) {

  static final String CALLS = "warmup.calls";
  static final String MAX_DURATION = "warmup.maxDuration";
  static final String SETTLED_SHARE = "warmup.settledShare";

  /**
   * Settings under {@code mcp-supervisor.application}; a bad value is a {@link ConfigException}.
   */
  static WarmupSettings fromConfig(Config settings, String origin) {
    int calls;
    Duration maxDuration;
    double settledShare;
    try {
      calls = settings.getInt(CALLS);
      maxDuration = settings.getDuration(MAX_DURATION);
      settledShare = settings.getDouble(SETTLED_SHARE);
    } catch (com.typesafe.config.ConfigException e) {
      throw new ConfigException(origin, e.getMessage());
    }
    if (calls < 0) {
      throw new ConfigException(origin, CALLS, "must be at least 0, got " + calls);
    }
    if (maxDuration.isNegative() || maxDuration.isZero()) {
      throw new ConfigException(origin, MAX_DURATION, "must be positive, got " + maxDuration);
    }
    if (settledShare < 0 || settledShare >= 1) {
      throw new ConfigException(
          origin, SETTLED_SHARE, "must be at least 0 and below 1, got " + settledShare);
    }
    return new WarmupSettings(calls, maxDuration, settledShare);
  }

  /** {@code --warmup-calls N} over the configured count. */
  WarmupSettings withCalls(int overridden) {
    if (overridden < 0) {
      throw new ConfigException("--warmup-calls", "must be at least 0, got " + overridden);
    }
    return new WarmupSettings(overridden, maxDuration, settledShare);
  }

  boolean enabled() {
    return calls > 0;
  }
}
