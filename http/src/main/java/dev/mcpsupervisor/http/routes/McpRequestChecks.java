package dev.mcpsupervisor.http.routes;

import dev.mcpsupervisor.http.access.McpRefusals;
import dev.mcpsupervisor.http.stateless.ParamHeaderCheck;
import dev.mcpsupervisor.http.stream.McpResponses;
import dev.mcpsupervisor.protocol.ParamHeaders;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.upstream.Failures;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaType;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.scaladsl.model.EntityStreamSizeException;

/**
 * What an MCP request must carry before its body is handed on: Content-Type, Accept,
 * MCP-Protocol-Version, Mcp-Session-Id, a body within the limit. Each check answers the refusal, or
 * nothing when the request passes. The {@code Mcp-Param-*} headers of a 2026-07-28 tools/call are
 * checked later, against the tool's schema ({@link ParamHeaderCheck}), and only collected here.
 */
final class McpRequestChecks {

  /** What to do with a body by its declared length. */
  enum BodySize {
    FITS,
    /**
     * Over the limit: read (and drop) it first, since answering while the client still sends makes
     * the connection close under it, and the client may lose the 413 to the reset.
     */
    DRAIN_THEN_REFUSE,
    /** Far over the limit: not worth reading, the connection closes after the answer. */
    REFUSE
  }

  /**
   * A body declared up to this many times the limit is read and dropped before the 413; a larger
   * one is not.
   */
  private static final long DRAIN_LIMIT_FACTOR = 4;

  private final McpRefusals refusals;

  /** {@code gateway.maxBodyBytes} in force. */
  private final LongSupplier maxBodyBytes;

  McpRequestChecks(McpRefusals refusals, LongSupplier maxBodyBytes) {
    this.refusals = refusals;
    this.maxBodyBytes = maxBodyBytes;
  }

  /**
   * POST: a JSON body, an answer the client accepts (JSON or SSE), and with a session a supported
   * version (without one it may be a 2026-07-28 request, whose version {@link
   * dev.mcpsupervisor.protocol.StatelessEnvelope} checks against its body).
   */
  Optional<HttpResponse> post(HttpRequest request, AcceptHeader accept) {
    MediaType mediaType = request.entity().getContentType().mediaType();
    if (!"application".equals(mediaType.mainType()) || !"json".equals(mediaType.subType())) {
      return Optional.of(
          refusals.refuse(
              StatusCodes.UNSUPPORTED_MEDIA_TYPE,
              "unsupported_media_type",
              "Unsupported Media Type: Content-Type must be application/json"));
    }
    if (!accept.json() && !accept.sse()) {
      return Optional.of(
          refusals.refuse(
              StatusCodes.NOT_ACCEPTABLE,
              "not_acceptable",
              "Not Acceptable: the client must accept application/json or text/event-stream"));
    }
    return sessionId(request).isPresent() ? sessionEraVersion(request) : Optional.empty();
  }

  /** GET: opens an SSE stream, so the client must accept one; a supported version. */
  Optional<HttpResponse> get(HttpRequest request) {
    return acceptAndProtocolVersion(
        request,
        AcceptHeader.of(request).sse(),
        "Not Acceptable: GET opens an SSE stream; the client must accept text/event-stream");
  }

  /** DELETE answers no body: only the version matters. */
  Optional<HttpResponse> delete(HttpRequest request) {
    return sessionEraVersion(request);
  }

  BodySize bodySize(HttpRequest request) {
    long declared = request.entity().getContentLengthOption().orElse(0L);
    long max = maxBodyBytes.getAsLong();
    if (declared <= max) {
      return BodySize.FITS;
    }
    return declared > DRAIN_LIMIT_FACTOR * max ? BodySize.REFUSE : BodySize.DRAIN_THEN_REFUSE;
  }

  /**
   * The request's {@code Mcp-Param-*} headers (SEP-2243), found by name regardless of case; a
   * repeated one keeps its values joined as HTTP does, so it matches no single value.
   */
  static Map<String, String> paramHeaders(HttpRequest request) {
    Map<String, String> found = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (HttpHeader header : request.getHeaders()) {
      if (header
          .name()
          .regionMatches(
              true, 0, ParamHeaders.HEADER_PREFIX, 0, ParamHeaders.HEADER_PREFIX.length())) {
        found.merge(header.name(), header.value(), (first, next) -> first + ", " + next);
      }
    }
    return Collections.unmodifiableMap(found);
  }

  /** The session id the request names; blank counts as none. */
  static Optional<String> sessionId(HttpRequest request) {
    return request
        .getHeader(McpResponses.SESSION_ID_HEADER)
        .map(header -> header.value().trim())
        .filter(value -> !value.isEmpty());
  }

  /** The value of the request's header of that name, or null. */
  static String header(HttpRequest request, String name) {
    return request.getHeader(name).map(HttpHeader::value).orElse(null);
  }

  HttpResponse missingSessionId() {
    return refusals.refuse(
        StatusCodes.BAD_REQUEST,
        "missing_session",
        "Bad Request: Mcp-Session-Id header is required");
  }

  HttpResponse tooLarge() {
    return refusals.refuse(
        StatusCodes.CONTENT_TOO_LARGE,
        "payload_too_large",
        "Payload Too Large: the body exceeds " + maxBodyBytes.getAsLong() + " bytes");
  }

  /**
   * The answer when the body could not be read: 413 over the limit, 408 too slow; anything else is
   * a fault of ours, rethrown for the exception handler (which answers -32603).
   */
  HttpResponse unreadableBody(Throwable failure) {
    Throwable cause = Failures.unwrap(failure);
    if (cause instanceof EntityStreamSizeException) {
      return tooLarge();
    }
    if (cause instanceof TimeoutException) {
      return refusals.refuse(
          StatusCodes.REQUEST_TIMEOUT,
          "body_timeout",
          "Request Timeout: the body did not arrive in time");
    }
    if (cause instanceof RuntimeException runtime) {
      throw runtime;
    }
    throw new CompletionException(cause);
  }

  /**
   * 406 when the client cannot accept what this method answers with, else {@link
   * #sessionEraVersion}.
   */
  private Optional<HttpResponse> acceptAndProtocolVersion(
      HttpRequest request, boolean accepted, String notAcceptableMessage) {
    if (!accepted) {
      return Optional.of(
          refusals.refuse(StatusCodes.NOT_ACCEPTABLE, "not_acceptable", notAcceptableMessage));
    }
    return sessionEraVersion(request);
  }

  /** A missing MCP-Protocol-Version passes; one this gateway does not support is refused. */
  Optional<HttpResponse> sessionEraVersion(HttpRequest request) {
    Optional<String> version =
        request.getHeader(McpResponses.PROTOCOL_VERSION_HEADER).map(h -> h.value().trim());
    if (version.isPresent() && !ProtocolVersions.isSupported(version.get())) {
      return Optional.of(
          refusals.refuse(
              StatusCodes.BAD_REQUEST,
              "unsupported_protocol_version",
              "Bad Request: unsupported MCP-Protocol-Version "
                  + version.get()
                  + " (supported: "
                  + String.join(", ", ProtocolVersions.SUPPORTED)
                  + ")"));
    }
    return Optional.empty();
  }
}
