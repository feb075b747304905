package dev.mcpsupervisor.protocol.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The gateway's limit of one downstream session's requests in flight is {@code
 * maxInflightPerDownstreamSession}; its old name {@code maxInflightPerSession} (which a server also
 * has, for its upstream sessions) is still read, with a warning.
 */
class DownstreamInflightLimitTest {

  private static final String FILE = "gateway.conf";

  private static SessionLimits limitsOf(String gatewayFields) {
    return ConfigLoader.parse("mcpServers {}\ngateway {" + gatewayFields + "}", FILE)
        .gateway()
        .sessionLimits();
  }

  /** What {@code read} logs at WARN from the gateway section's reader, and its result. */
  private static <T> T warnings(List<String> logged, Supplier<T> read) {
    Logger logger = (Logger) LoggerFactory.getLogger(GatewayConfigReader.class);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try {
      return read.get();
    } finally {
      logger.detachAppender(appender);
      appender.list.stream()
          .filter(event -> event.getLevel() == Level.WARN)
          .forEach(event -> logged.add(event.getFormattedMessage()));
    }
  }

  @Test
  void theNewNameIsReadWithoutAWarning() {
    List<String> logged = new ArrayList<>();
    SessionLimits limits = warnings(logged, () -> limitsOf("maxInflightPerDownstreamSession = 5"));
    assertEquals(5, limits.maxInflightPerDownstreamSession());
    assertEquals(List.of(), logged);
  }

  @Test
  void theOldNameIsStillReadWithAWarningNamingTheNewOne() {
    List<String> logged = new ArrayList<>();
    SessionLimits limits = warnings(logged, () -> limitsOf("maxInflightPerSession = 7"));
    assertEquals(7, limits.maxInflightPerDownstreamSession());
    assertEquals(
        List.of(
            FILE
                + ": gateway.maxInflightPerSession is deprecated; write"
                + " maxInflightPerDownstreamSession (a server's maxInflightPerSession is another"
                + " limit, its upstream sessions')"),
        logged);
  }

  @Test
  void bothNamesAreAnError() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> limitsOf("maxInflightPerDownstreamSession = 5, maxInflightPerSession = 7"));
    assertEquals(
        FILE
            + ": gateway.maxInflightPerSession: use either maxInflightPerDownstreamSession or its"
            + " old name maxInflightPerSession, not both",
        e.getMessage());
  }

  @Test
  void unsetItIsTheDefaultAndAServersLimitOfTheOldNameIsNotIt() {
    List<String> logged = new ArrayList<>();
    SessionLimits limits =
        warnings(
            logged,
            () ->
                ConfigLoader.parse(
                        "mcpServers { a { command = x, maxInflightPerSession = 3 } }", FILE)
                    .gateway()
                    .sessionLimits());
    assertEquals(SessionLimits.defaults(), limits);
    assertEquals(
        ConfigLoader.reference()
            .getInt(ConfigLoader.GATEWAY_DEFAULTS + ".maxInflightPerDownstreamSession"),
        limits.maxInflightPerDownstreamSession());
    assertTrue(logged.isEmpty(), logged::toString);
  }
}
