package dev.mcpsupervisor.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class UpstreamDiagnosticsTest {

  @Test
  void aUrlIsCutToSchemeHostAndPort() {
    assertEquals(
        "https://api.example.com:8443",
        UpstreamDiagnostics.redactUrl(
            URI.create("https://user:pw@api.example.com:8443/mcp/sk-CANARY?key=CANARY#CANARY")));
    assertEquals(
        "http://127.0.0.1", UpstreamDiagnostics.redactUrl(URI.create("http://127.0.0.1/mcp")));
  }

  @Test
  void everyUrlInATextIsCut() {
    assertEquals(
        "POST failed: ConnectException: http://127.0.0.1:9 and https://example.com: refused",
        UpstreamDiagnostics.redact(
            "POST failed: ConnectException: http://u:CANARY@127.0.0.1:9/mcp/sk-CANARY?a=CANARY"
                + " and https://example.com/x: refused"));
    assertEquals("no url here", UpstreamDiagnostics.redact("no url here"));
    assertEquals("(see http://h).", UpstreamDiagnostics.redact("(see http://h/a:b;c)."));
    assertEquals("$1 \\ http://h", UpstreamDiagnostics.redact("$1 \\ http://h/$2\\"));
    assertNull(UpstreamDiagnostics.redact(null));
  }

  @Test
  void anIncidentIsLoggedOnceWithItsRedactedDetailWhenAClientIsFirstTold() {
    Logger logger = (Logger) LoggerFactory.getLogger(UpstreamDiagnostics.class);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try {
      UpstreamDiagnostics.Incident incident =
          UpstreamDiagnostics.incident("srv", "HTTP 500 from http://h:1/mcp/sk-CANARY: CANARY");
      assertTrue(appender.list.isEmpty(), "nothing logged before a client is told");

      String ref = incident.told();
      assertEquals(ref, incident.told());
      assertTrue(ref.matches("[0-9a-f]{8}"), ref);
      assertEquals(1, appender.list.size());
      ILoggingEvent event = appender.list.get(0);
      assertEquals(Level.WARN, event.getLevel());
      assertEquals(
          "srv: ref " + ref + ": HTTP 500 from http://h:1: CANARY", event.getFormattedMessage());
      assertFalse(event.getFormattedMessage().contains("sk-CANARY"));
      assertNotEquals(ref, UpstreamDiagnostics.incident("srv", "x").told(), "refs are random");
    } finally {
      logger.detachAppender(appender);
    }
  }

  @Test
  void aHeadlineKeepsTheKindOfAFailureAndNothingAnUpstreamSaid() {
    assertEquals(
        "process exited: exit code 137",
        UpstreamDiagnostics.headline("process exited: exit code 137; last stderr: sk-SECRET"));
    assertEquals(
        "transport error",
        UpstreamDiagnostics.headline("transport error: POST answered HTTP 500: key sk-SECRET"));
    assertEquals(
        "initialize failed", UpstreamDiagnostics.headline("initialize failed: bad key sk-SECRET"));
    assertEquals(
        "connect to https://api.example.com failed",
        UpstreamDiagnostics.headline("connect to https://api.example.com/v1/sk-SECRET failed"));
    assertEquals("connection ended", UpstreamDiagnostics.headline("connection ended"));
    assertEquals("", UpstreamDiagnostics.headline(null));
    assertEquals(161, UpstreamDiagnostics.headline("x".repeat(500)).length(), "bounded");
  }
}
