package dev.mcpsupervisor.http.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** The one POST the bench runners send: a JSON-RPC message to a Streamable HTTP endpoint. */
final class BenchPosts {

  private BenchPosts() {}

  /**
   * Sends {@code body}, with the session's headers when {@code sessionId} is not null; a non-2xx
   * answer fails naming {@code target}.
   *
   * @param resent counts the resends: the JDK client may reuse a keep-alive connection just as the
   *     server closes it (Tomcat after 100 requests), so a request failing with an IOException is
   *     sent again, a few times at most (the runners' messages are idempotent or counted)
   */
  static HttpResponse<String> post(
      HttpClient http,
      URI endpoint,
      Duration timeout,
      String sessionId,
      String protocolVersion,
      String body,
      AtomicInteger resent,
      String target)
      throws Exception {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(endpoint)
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (sessionId != null) {
      builder.header("Mcp-Session-Id", sessionId).header("MCP-Protocol-Version", protocolVersion);
    }
    HttpRequest request = builder.build();
    HttpResponse<String> response = null;
    for (int attempt = 1; response == null; attempt++) {
      try {
        response = http.send(request, HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        if (attempt == 3) {
          throw e;
        }
        resent.incrementAndGet();
      }
    }
    if (response.statusCode() / 100 != 2) {
      throw new IllegalStateException(
          target + ": HTTP " + response.statusCode() + ": " + response.body());
    }
    return response;
  }
}
