package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamLimits;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Client side of the legacy MCP HTTP+SSE transport (protocol 2024-11-05), on {@code java.net.http}:
 * one HTTP/1.1 client for all its connections. A connection is open once the server named its
 * message endpoint. See {@link SseConnection}.
 */
public final class SseConnector implements UpstreamConnector {

  /** How long the server may take to send the {@code endpoint} event. */
  public static final Duration DEFAULT_ENDPOINT_TIMEOUT = Duration.ofSeconds(10);

  private final HttpClient client = HttpTransport.newClient("mcp-sse");
  private final Duration endpointTimeout;

  public SseConnector() {
    this(DEFAULT_ENDPOINT_TIMEOUT);
  }

  public SseConnector(Duration endpointTimeout) {
    this.endpointTimeout = endpointTimeout;
  }

  @Override
  public CompletionStage<UpstreamConnection> connect(ServerSpec spec, ConnectionListener listener) {
    return connect(spec, DEFAULT_LIMITS, listener);
  }

  @Override
  public CompletionStage<UpstreamConnection> connect(
      ServerSpec spec, UpstreamLimits limits, ConnectionListener listener) {
    if (!(spec instanceof ServerSpec.Sse sse)) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("the SSE connector cannot open " + spec.transport()));
    }
    List<Map.Entry<String, String>> headers;
    try {
      headers = HttpTransport.configuredHeaders(sse.headers());
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(spec + ": " + e.getMessage(), e));
    }
    return SseConnection.open(
        client, sse.url(), headers, spec.toString(), limits, listener, endpointTimeout);
  }
}
