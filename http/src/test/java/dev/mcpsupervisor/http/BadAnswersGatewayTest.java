package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.answer;
import static dev.mcpsupervisor.http.TestGateway.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.FixtureHttpServer;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.http.endpoint.SingleServerEndpoint;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * An upstream's answer out of spec fails the one call it answers, never its session (issue 35): an
 * {@code application/json} body with a notification and the result on separate lines is read in
 * order, and a body that is not JSON-RPC or answers another id fails its call with -32603 naming
 * the server and none of its text; the next call on the same upstream session succeeds. Session-era
 * and 2026-07-28 clients, against the fixture over Streamable HTTP in both eras and over stdio.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BadAnswersGatewayTest {

  private static final String H25 = "h25";
  private static final String H26 = "h26";
  private static final String STDIO = "s25";

  private final AtomicInteger ids = new AtomicInteger(10);
  private FixtureHttpServer http2025;
  private FixtureHttpServer http2026;
  private TestGateway gateway;
  private StatelessClient stateless;

  @BeforeAll
  void start() {
    http2025 = FixtureServer.startHttp(0);
    http2026 = FixtureServer.startHttp(0);
    gateway =
        TestGateway.start(
            TestGateway.stdioFixture(STDIO),
            TestGateway.server(
                H25,
                new ServerSpec.StreamableHttp(
                    URI.create(http2025.url()), Map.of(), UpstreamProtocol.SESSION)),
            TestGateway.server(
                H26,
                new ServerSpec.StreamableHttp(
                    URI.create(http2026.url()), Map.of(), UpstreamProtocol.STATELESS)));
    stateless = new StatelessClient(gateway, "{}");
  }

  @AfterAll
  void stop() {
    gateway.close();
    http2025.close();
    http2026.close();
  }

  /** A call of {@code tool} on {@code server}: from a session-era client when session is set. */
  private JsonNode call(String server, String session, String tool, String arguments) {
    String path = SingleServerEndpoint.pathOf(server);
    HttpResponse<String> response =
        session != null
            ? gateway.post(
                path, session, TestGateway.callTool(ids.incrementAndGet(), tool, arguments))
            : stateless.callTool(path, ids.incrementAndGet(), tool, arguments);
    return answer(response);
  }

  private static String badAnswer(String kind) {
    return "{\"kind\":\"" + kind + "\"}";
  }

  private void failsTheCallOnly(String server, String session, String kind) {
    JsonNode answer = call(server, session, FixtureTools.BAD_ANSWER, badAnswer(kind));
    JsonNode error = answer.path("error");
    assertEquals(-32603, error.path("code").asInt(), kind + ": " + answer);
    assertTrue(error.path("message").asText().contains(server), kind + ": " + answer);
    assertFalse(answer.toString().contains("not JSON-RPC\""), "no upstream text: " + answer);
    assertFalse(answer.toString().contains("this body"), "no upstream text: " + answer);
  }

  private void theUpstreamSessionGoesOn(String server, String session) {
    JsonNode count = call(server, session, FixtureTools.COUNT, "{}");
    long before = Long.parseLong(text(count));
    for (String kind : List.of("two_lines", "garbage", "other_id", "two_lines")) {
      if (kind.equals("two_lines")) {
        JsonNode answer = call(server, session, FixtureTools.BAD_ANSWER, badAnswer(kind));
        assertEquals(FixtureTools.BAD_ANSWER_TEXT, text(answer), answer.toString());
      } else {
        failsTheCallOnly(server, session, kind);
      }
    }
    JsonNode after = call(server, session, FixtureTools.COUNT, "{}");
    // the fixture counts per upstream session: one more is the same session
    assertEquals(before + 1, Long.parseLong(text(after)), after.toString());
  }

  @Test
  void aSessionEraUpstreamOverHttpFailsOneCallPerBadAnswerForEitherEraOfClient() {
    theUpstreamSessionGoesOn(H25, gateway.initialize(SingleServerEndpoint.pathOf(H25)));
    theUpstreamSessionGoesOn(H25, null);
  }

  @Test
  void aStatelessUpstreamOverHttpFailsOneCallPerBadAnswerForEitherEraOfClient() {
    for (String session :
        new String[] {gateway.initialize(SingleServerEndpoint.pathOf(H26)), null}) {
      for (String kind : List.of("garbage", "other_id")) {
        failsTheCallOnly(H26, session, kind);
      }
      JsonNode answer = call(H26, session, FixtureTools.BAD_ANSWER, badAnswer("two_lines"));
      assertEquals(FixtureTools.BAD_ANSWER_TEXT, text(answer), answer.toString());
      JsonNode echo = call(H26, session, FixtureTools.ECHO, "{\"message\":\"still here\"}");
      assertEquals("still here", text(echo), echo.toString());
    }
  }

  @Test
  void aStdioLineThatIsNotJsonRpcIsSkippedAndTheProcessGoesOn() {
    for (String session :
        new String[] {gateway.initialize(SingleServerEndpoint.pathOf(STDIO)), null}) {
      String pid = text(call(STDIO, session, FixtureTools.PID, "{}"));
      JsonNode answer = call(STDIO, session, FixtureTools.BAD_ANSWER, badAnswer("garbage"));
      assertEquals(FixtureTools.BAD_ANSWER_TEXT, text(answer), answer.toString());
      assertEquals(pid, text(call(STDIO, session, FixtureTools.PID, "{}")));
    }
  }
}
