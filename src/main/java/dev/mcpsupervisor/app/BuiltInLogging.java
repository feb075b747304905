package dev.mcpsupervisor.app;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import ch.qos.logback.core.status.NopStatusListener;
import java.util.Map;

/**
 * The jar's logging, set up in code rather than from a logback XML file, so no JVM the jar starts
 * (the gateway, the demo server) loads an XML parser: about 500 classes fewer per start
 * (docs/benchmarks.md, "Start", tenth round). One line per event on stderr (stdout carries the
 * "listening" line, and the protocol in the demo server and the stdio front), the exception folded
 * into the same line. The root level comes from {@code -Dmcp-supervisor.log.level} (default INFO).
 * With {@code -Dlogback.configurationFile} set, that file configures logback instead. Registered
 * for logback's {@link java.util.ServiceLoader} lookup.
 */
public final class BuiltInLogging extends ContextAwareBase implements Configurator {

  static final String LEVEL_PROPERTY = "mcp-supervisor.log.level";

  /** logback's own property naming a configuration file: it wins over this one. */
  static final String FILE_PROPERTY = "logback.configurationFile";

  static final String PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSX,UTC} %-5level %logger{24} - %msg"
          + "%replace(%replace(%replace(%ex{full}){'[\\r\\n]+\\s*', ' | '}){' \\| $', ''})"
          + "{'^(?=.)', ' | '}%nopex%n";

  /**
   * Libraries speak up only when something is wrong; a failed bind is reported by Main in one line
   * ("cannot listen on H:N: ..."), not as the TCP listener's stack trace.
   */
  static final Map<String, Level> LIBRARY_LEVELS =
      Map.of(
          "org.apache.pekko", Level.WARN,
          "io.modelcontextprotocol", Level.WARN,
          "reactor", Level.WARN,
          "org.apache.pekko.io.TcpListener", Level.OFF);

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty(FILE_PROPERTY) != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    // logback prints its own status lines on a warning: never onto a protocol stream's neighbour
    context.getStatusManager().add(new NopStatusListener());
    ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
    stderr.setContext(context);
    stderr.setName("STDERR");
    stderr.setTarget("System.err");
    stderr.setEncoder(encoder(context));
    stderr.start();
    LIBRARY_LEVELS.forEach((name, level) -> context.getLogger(name).setLevel(level));
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.toLevel(System.getProperty(LEVEL_PROPERTY), Level.INFO));
    root.addAppender(stderr);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  static PatternLayoutEncoder encoder(LoggerContext context) {
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    return encoder;
  }
}
