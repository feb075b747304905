package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class BuiltInLoggingTest {

  private static final Pattern TIME =
      Pattern.compile("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z ");

  @AfterEach
  void clearProperties() {
    System.clearProperty(BuiltInLogging.LEVEL_PROPERTY);
    System.clearProperty(BuiltInLogging.FILE_PROPERTY);
  }

  @Test
  void theJarsLogbackIsConfiguredByThisClass() {
    assertTrue(
        ServiceLoader.load(Configurator.class).stream()
            .anyMatch(provider -> provider.type() == BuiltInLogging.class),
        "registered for logback's ServiceLoader lookup");
    LoggerContext running = (LoggerContext) LoggerFactory.getILoggerFactory();
    assertInstanceOf(
        ConsoleAppender.class,
        running.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR"),
        "this JVM's logback was set up by it");
  }

  @Test
  void oneLinePerEventWithTheExceptionFoldedIn() {
    LoggerContext context = configured();
    Logger logger = context.getLogger("dev.mcpsupervisor.http.session.DownstreamSession");
    LoggingEvent ended =
        new LoggingEvent(
            Logger.FQCN, logger, Level.INFO, "session {} ended", null, new Object[] {"s1"});
    ended.setMDCPropertyMap(Map.of());
    String line = encoded(context, ended);
    assertTrue(TIME.matcher(line).find(), line);
    assertTrue(line.endsWith(" INFO  d.m.h.s.DownstreamSession - session s1 ended\n"), line);

    LoggingEvent failed =
        new LoggingEvent(
            Logger.FQCN,
            logger,
            Level.WARN,
            "call failed",
            new IllegalStateException("upstream\ngone"),
            null);
    failed.setMDCPropertyMap(Map.of());
    String folded = encoded(context, failed);
    assertEquals(1, folded.split("\n", -1).length - 1, "one line: " + folded);
    assertTrue(
        folded.contains(" - call failed | java.lang.IllegalStateException: upstream | gone | at "),
        folded);
    assertFalse(folded.endsWith(" | \n"), folded);
  }

  @Test
  void librariesWarnOnlyAndTheRootLevelComesFromTheProperty() {
    LoggerContext quiet = configured();
    assertEquals(Level.INFO, quiet.getLogger(Logger.ROOT_LOGGER_NAME).getLevel());
    assertEquals(Level.WARN, quiet.getLogger("org.apache.pekko.stream").getEffectiveLevel());
    assertEquals(Level.OFF, quiet.getLogger("org.apache.pekko.io.TcpListener").getLevel());
    assertEquals(Level.WARN, quiet.getLogger("io.modelcontextprotocol.spec").getEffectiveLevel());

    System.setProperty(BuiltInLogging.LEVEL_PROPERTY, "DEBUG");
    assertEquals(Level.DEBUG, configured().getLogger(Logger.ROOT_LOGGER_NAME).getLevel());
    System.setProperty(BuiltInLogging.LEVEL_PROPERTY, "LOUD");
    assertEquals(
        Level.INFO,
        configured().getLogger(Logger.ROOT_LOGGER_NAME).getLevel(),
        "a level logback does not know leaves the default");
  }

  @Test
  void aLogbackFileGivenOnTheCommandLineConfiguresInstead() {
    System.setProperty(BuiltInLogging.FILE_PROPERTY, "/path/to/logback.xml");
    LoggerContext context = new LoggerContext();
    BuiltInLogging logging = new BuiltInLogging();
    logging.setContext(context);
    assertEquals(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY, logging.configure(context));
    assertNull(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR"));
  }

  private static LoggerContext configured() {
    LoggerContext context = new LoggerContext();
    BuiltInLogging logging = new BuiltInLogging();
    logging.setContext(context);
    assertEquals(
        Configurator.ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY, logging.configure(context));
    return context;
  }

  private static String encoded(LoggerContext context, LoggingEvent event) {
    return new String(BuiltInLogging.encoder(context).encode(event), StandardCharsets.UTF_8);
  }
}
