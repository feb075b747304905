package dev.mcpsupervisor.app;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/**
 * Only warnings and errors from the gateway's loggers while it lasts: the warm-up's private gateway
 * logs its start, its sessions and its stop like the real one, and those lines would read as the
 * real gateway's. Restores the level set before (also one set in a logback file) when closed. Does
 * nothing when the loggers already log less, or when SLF4J is not bound to logback.
 */
final class QuietLogs implements AutoCloseable {

  private static final String GATEWAY_LOGGERS = "dev.mcpsupervisor";

  private final Logger logger;
  private final Level levelBefore;

  private QuietLogs(Logger logger, Level levelBefore) {
    this.logger = logger;
    this.levelBefore = levelBefore;
  }

  static QuietLogs belowWarn() {
    if (LoggerFactory.getLogger(GATEWAY_LOGGERS) instanceof Logger logger
        && !logger.getEffectiveLevel().isGreaterOrEqual(Level.WARN)) {
      QuietLogs quiet = new QuietLogs(logger, logger.getLevel());
      logger.setLevel(Level.WARN);
      return quiet;
    }
    return new QuietLogs(null, null);
  }

  @Override
  public void close() {
    if (logger != null) {
      logger.setLevel(levelBefore);
    }
  }
}
