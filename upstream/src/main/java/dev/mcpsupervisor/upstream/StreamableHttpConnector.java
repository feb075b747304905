package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.config.ServerSpec;
import java.net.http.HttpClient;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Client side of MCP Streamable HTTP (protocol 2025-03-26 and later), on {@code java.net.http}: one
 * HTTP/1.1 client for all its connections. Opening a connection sends nothing: the session starts
 * with the {@code initialize} POST. See {@link StreamableHttpConnection}.
 */
public final class StreamableHttpConnector implements UpstreamConnector {

  private final HttpClient client = HttpTransport.newClient("mcp-streamable-http");

  @Override
  public CompletionStage<UpstreamConnection> connect(ServerSpec spec, ConnectionListener listener) {
    if (!(spec instanceof ServerSpec.StreamableHttp http)) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(
              "the Streamable HTTP connector cannot open " + spec.transport()));
    }
    String scheme =
        http.url().getScheme() == null ? "" : http.url().getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("not an http(s) URL: " + spec));
    }
    List<Map.Entry<String, String>> headers;
    try {
      headers = HttpTransport.configuredHeaders(http.headers());
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(spec + ": " + e.getMessage(), e));
    }
    return CompletableFuture.completedFuture(
        new StreamableHttpConnection(client, http.url(), headers, spec.toString(), listener));
  }
}
