package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.UpstreamDiagnostics;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What the two HTTP connectors share: the client, request headers, content types and error wording.
 */
final class HttpTransport {

  static final String EVENT_STREAM = "text/event-stream";
  static final String JSON = "application/json";
  static final String SESSION_ID_HEADER = "Mcp-Session-Id";
  static final String PROTOCOL_VERSION_HEADER = "MCP-Protocol-Version";
  static final String LAST_EVENT_ID_HEADER = "Last-Event-ID";
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  /** Headers the connectors set themselves: a configured header of the same name is not sent. */
  private static final Set<String> OWN_HEADERS =
      Set.of("accept", "content-type", "mcp-session-id", "mcp-protocol-version", "last-event-id");

  private static final int PREVIEW_CHARS = 200;

  private HttpTransport() {}

  /**
   * One client per connector: HTTP/1.1 (one stream per connection, as MCP servers expect), daemon
   * threads.
   */
  static HttpClient newClient(String threadPrefix) {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(CONNECT_TIMEOUT)
        .executor(DaemonThreads.cachedPool(threadPrefix))
        .build();
  }

  /**
   * The configured headers to send, minus those the connector sets itself.
   *
   * @throws IllegalArgumentException naming a header the HTTP client refuses to set (Host,
   *     Connection, ...)
   */
  static List<Map.Entry<String, String>> configuredHeaders(Map<String, String> configured) {
    List<Map.Entry<String, String>> headers =
        configured.entrySet().stream()
            .filter(header -> !OWN_HEADERS.contains(header.getKey().toLowerCase(Locale.ROOT)))
            .map(header -> Map.entry(header.getKey(), header.getValue()))
            .toList();
    HttpRequest.Builder probe = HttpRequest.newBuilder(URI.create("http://127.0.0.1/"));
    for (Map.Entry<String, String> header : headers) {
      try {
        probe.header(header.getKey(), header.getValue());
      } catch (IllegalArgumentException e) {
        // the value may be a secret: only the name is named
        throw new IllegalArgumentException(
            "header \"" + header.getKey() + "\" cannot be sent by the HTTP client", e);
      }
    }
    return headers;
  }

  static HttpRequest.Builder request(URI uri, List<Map.Entry<String, String>> headers) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(uri);
    headers.forEach(header -> builder.header(header.getKey(), header.getValue()));
    return builder;
  }

  static boolean isEventStream(HttpHeaders headers) {
    return contentType(headers).startsWith(EVENT_STREAM);
  }

  static boolean isJson(HttpHeaders headers) {
    return contentType(headers).startsWith(JSON);
  }

  private static String contentType(HttpHeaders headers) {
    return headers.firstValue("Content-Type").orElse("").trim().toLowerCase(Locale.ROOT);
  }

  static boolean isSuccess(int status) {
    return status >= 200 && status < 300;
  }

  /** A body subscriber that discards the body: the answer's status says all. */
  static <T> BodySubscriber<T> discarding() {
    return BodySubscribers.replacing(null);
  }

  /** The start of a body, for error messages. */
  static String preview(byte[] body) {
    if (body == null || body.length == 0) {
      return "(empty body)";
    }
    String text =
        new String(body, 0, Math.min(body.length, PREVIEW_CHARS * 4), StandardCharsets.UTF_8)
            .strip();
    return text.length() > PREVIEW_CHARS ? text.substring(0, PREVIEW_CHARS) + "…" : text;
  }

  /** Whether nothing listens there (connection refused, connect timeout): the server is down. */
  static boolean isUnreachable(Throwable failure) {
    Throwable cause = Failures.unwrap(failure);
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof ConnectException || t instanceof HttpConnectTimeoutException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a request failed because its connection was closed before any byte of an answer came:
   * the JDK client had taken a pooled keep-alive connection the server had closed meanwhile.
   */
  static boolean closedBeforeAnswer(Throwable failure) {
    Throwable cause = Failures.unwrap(failure);
    return cause instanceof java.io.IOException
        && !(cause instanceof java.net.http.HttpTimeoutException)
        && cause.getMessage() != null
        && cause.getMessage().contains("received no bytes");
  }

  /** One line for logs and close details. */
  static String describe(Throwable failure) {
    Throwable cause = Failures.unwrap(failure);
    String message = cause.getMessage();
    if (message == null && cause.getCause() != null) {
      message = cause.getCause().toString();
    }
    return cause.getClass().getSimpleName()
        + (message == null ? "" : ": " + UpstreamDiagnostics.redact(message));
  }
}
