package dev.mcpsupervisor.http.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.http.access.McpRefusals;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.http.stream.McpResponses;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.scaladsl.model.EntityStreamSizeException;
import org.junit.jupiter.api.Test;

/** The header and body checks of the MCP endpoints, on requests built in memory. */
class McpRequestChecksTest {

  private static final long LIMIT = 10;

  private final McpRequestChecks checks =
      new McpRequestChecks(new McpRefusals(new GatewayMetrics()), () -> LIMIT);

  private static HttpRequest post(String body, String... headers) {
    HttpRequest request = HttpRequest.POST("/mcp").withEntity(ContentTypes.APPLICATION_JSON, body);
    for (int i = 0; i < headers.length; i += 2) {
      request = request.addHeader(RawHeader.create(headers[i], headers[i + 1]));
    }
    return request;
  }

  private static Optional<HttpResponse> postChecks(McpRequestChecks checks, HttpRequest request) {
    return checks.post(request, AcceptHeader.of(request));
  }

  private static int status(Optional<HttpResponse> refusal) {
    assertTrue(refusal.isPresent(), "refused");
    return refusal.get().status().intValue();
  }

  private static String body(HttpResponse response) {
    return ((HttpEntity.Strict) response.entity()).getData().utf8String();
  }

  @Test
  void aPostWhoseBodyIsNotJsonIsRefusedWith415() {
    HttpRequest request = HttpRequest.POST("/mcp").withEntity(ContentTypes.TEXT_PLAIN_UTF8, "{}");
    assertEquals(415, status(postChecks(checks, request)));
  }

  @Test
  void aPostPassesWhenTheClientAcceptsJsonOrSseAndIsRefusedWith406WhenNeither() {
    assertTrue(postChecks(checks, post("{}")).isEmpty(), "no Accept header accepts both");
    assertTrue(postChecks(checks, post("{}", "Accept", "application/json")).isEmpty());
    assertTrue(postChecks(checks, post("{}", "Accept", "text/event-stream")).isEmpty());
    assertEquals(406, status(postChecks(checks, post("{}", "Accept", "text/plain"))));
  }

  @Test
  void aGetIsRefusedWith406UnlessTheClientAcceptsSse() {
    assertEquals(
        406, status(checks.get(HttpRequest.GET("/mcp").addHeader(accept("application/json")))));
    assertTrue(
        checks.get(HttpRequest.GET("/mcp").addHeader(accept("text/event-stream"))).isEmpty());
  }

  @Test
  void anUnsupportedProtocolVersionIsRefusedWith400NamingTheSupportedOnes() {
    Optional<HttpResponse> refusal =
        postChecks(
            checks,
            post(
                "{}",
                McpResponses.SESSION_ID_HEADER,
                "abc",
                McpResponses.PROTOCOL_VERSION_HEADER,
                "1999-01-01"));
    assertEquals(400, status(refusal));
    assertTrue(
        postChecks(checks, post("{}", McpResponses.PROTOCOL_VERSION_HEADER, "1999-01-01"))
            .isEmpty(),
        "without a session it may be a 2026-07-28 request: its body decides");
    assertEquals(
        400,
        status(
            checks.sessionEraVersion(
                post("{}", McpResponses.PROTOCOL_VERSION_HEADER, "1999-01-01"))));
    assertTrue(body(refusal.get()).contains(ProtocolVersions.V2025_03_26), body(refusal.get()));
    assertEquals(
        400,
        status(
            checks.delete(
                HttpRequest.DELETE("/mcp")
                    .addHeader(
                        RawHeader.create(McpResponses.PROTOCOL_VERSION_HEADER, "1999-01-01")))));
  }

  @Test
  void aSupportedOrMissingProtocolVersionPasses() {
    assertTrue(
        postChecks(
                checks,
                post("{}", McpResponses.PROTOCOL_VERSION_HEADER, " " + ProtocolVersions.LATEST))
            .isEmpty());
    assertTrue(checks.delete(HttpRequest.DELETE("/mcp")).isEmpty());
  }

  @Test
  void theNotAcceptableCheckComesBeforeTheVersionCheck() {
    assertEquals(
        406,
        status(
            postChecks(
                checks,
                post(
                    "{}",
                    "Accept",
                    "text/plain",
                    McpResponses.PROTOCOL_VERSION_HEADER,
                    "1999-01-01"))));
  }

  @Test
  void theSessionIdIsTrimmedAndABlankOneCountsAsNone() {
    assertEquals(
        Optional.of("abc"),
        McpRequestChecks.sessionId(post("{}", McpResponses.SESSION_ID_HEADER, " abc ")));
    assertEquals(
        Optional.empty(),
        McpRequestChecks.sessionId(post("{}", McpResponses.SESSION_ID_HEADER, "  ")));
    assertEquals(Optional.empty(), McpRequestChecks.sessionId(post("{}")));
    assertEquals(400, checks.missingSessionId().status().intValue());
  }

  @Test
  void aBodyOverTheLimitIsDrainedUpToFourTimesTheLimitAndRefusedUnreadBeyond() {
    assertEquals(McpRequestChecks.BodySize.FITS, checks.bodySize(post("x".repeat(10))));
    assertEquals(
        McpRequestChecks.BodySize.DRAIN_THEN_REFUSE, checks.bodySize(post("x".repeat(11))));
    assertEquals(
        McpRequestChecks.BodySize.DRAIN_THEN_REFUSE, checks.bodySize(post("x".repeat(40))));
    assertEquals(McpRequestChecks.BodySize.REFUSE, checks.bodySize(post("x".repeat(41))));
    assertEquals(413, checks.tooLarge().status().intValue());
  }

  @Test
  void aBodyTooLargeOrTooSlowIsRefusedAndAnyOtherFailureIsRethrown() {
    assertEquals(
        413,
        checks
            .unreadableBody(
                new CompletionException(new EntityStreamSizeException(LIMIT, scala.Option.empty())))
            .status()
            .intValue());
    assertEquals(
        408,
        checks.unreadableBody(new CompletionException(new TimeoutException())).status().intValue());
    IllegalStateException bug = new IllegalStateException("bug");
    assertSame(
        bug,
        assertThrows(
            IllegalStateException.class,
            () -> checks.unreadableBody(new CompletionException(bug))));
    assertThrows(
        CompletionException.class,
        () -> checks.unreadableBody(new CompletionException(new java.io.IOException("io"))));
  }

  private static RawHeader accept(String value) {
    return RawHeader.create("Accept", value);
  }
}
