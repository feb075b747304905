package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamLimits;
import java.net.http.HttpClient;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Client side of MCP Streamable HTTP (protocol 2025-03-26 and later), on {@code java.net.http}: one
 * HTTP/1.1 client for all its connections. Opening a connection sends nothing: the session starts
 * with the {@code initialize} POST. See {@link StreamableHttpConnection}; for a server of
 * 2026-07-28 {@link StatelessHttpConnection} under a {@link StatelessAdapter}, and {@link
 * AutoEraConnection} when the spec's protocol is auto.
 */
public final class StreamableHttpConnector implements UpstreamConnector {

  private final HttpClient client = HttpTransport.newClient("mcp-streamable-http");

  @Override
  public CompletionStage<UpstreamConnection> connect(ServerSpec spec, ConnectionListener listener) {
    return connect(spec, DEFAULT_LIMITS, listener);
  }

  @Override
  public CompletionStage<UpstreamConnection> connect(
      ServerSpec spec, UpstreamLimits limits, ConnectionListener listener) {
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
    String name = spec.toString();
    Function<ConnectionListener, UpstreamConnection> sessionEra =
        heard -> new StreamableHttpConnection(client, http.url(), headers, name, limits, heard);
    Function<ConnectionListener, UpstreamConnection> statelessEra =
        heard -> new StatelessHttpConnection(client, http.url(), headers, name, limits, heard);
    return CompletableFuture.completedFuture(
        switch (spec.protocol()) {
          case SESSION -> sessionEra.apply(listener);
          case STATELESS -> {
            StatelessAdapter adapter = new StatelessAdapter(name, listener, null);
            yield adapter.attach(statelessEra.apply(adapter));
          }
          case AUTO -> AutoEraConnection.probingFirst(name, listener, sessionEra, statelessEra);
          case AUTO_SESSION_ERA_FIRST ->
              AutoEraConnection.initializingFirst(name, listener, sessionEra, statelessEra);
        });
  }
}
