package dev.mcpsupervisor.http;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The gateway's log lines at DEBUG while it is open, for tests that check what the logs never show
 * (a secret); closing it restores the level and stops the capture.
 */
final class CapturedLogs implements AutoCloseable {

  private final Logger logger = (Logger) LoggerFactory.getLogger("dev.mcpsupervisor");
  private final Level level = logger.getLevel();
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

  CapturedLogs() {
    logger.setLevel(Level.DEBUG);
    lines.start();
    logger.addAppender(lines);
  }

  /** The lines logged so far, formatted. */
  List<String> lines() {
    return List.copyOf(lines.list).stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Override
  public void close() {
    logger.detachAppender(lines);
    logger.setLevel(level);
  }
}
