package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamLimits;
import java.net.http.HttpClient;
import java.util.LinkedHashMap;
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

  private static final String AUTHORIZATION = "Authorization";
  private static final String BEARER = "Bearer ";

  private final HttpClient client = HttpTransport.newClient("mcp-streamable-http");

  private final TokenExchanger exchanger = new TokenExchanger(client);

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
    Map<String, String> configured = new LinkedHashMap<>(http.headers());
    HttpClient connectionClient = client;
    if (http.tokenExchange() != null) {
      // the caller's own token: exchanged, never sent
      String callerToken = configured.remove(AUTHORIZATION);
      if (callerToken == null || !callerToken.startsWith(BEARER)) {
        return CompletableFuture.failedFuture(
            new IllegalArgumentException(spec + ": no caller's token to exchange"));
      }
      connectionClient =
          new ExchangedTokenClient(
              client, exchanger, http.tokenExchange(), callerToken.substring(BEARER.length()));
    }
    List<Map.Entry<String, String>> headers;
    try {
      headers = HttpTransport.configuredHeaders(configured);
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(spec + ": " + e.getMessage(), e));
    }
    if (connectionClient instanceof ExchangedTokenClient exchanging) {
      // an exchange that fails fails the connect: the caller's error, before any request
      return exchanging
          .firstToken()
          .thenApply(token -> open(spec, http, exchanging, headers, limits, listener));
    }
    return CompletableFuture.completedFuture(
        open(spec, http, connectionClient, headers, limits, listener));
  }

  private static UpstreamConnection open(
      ServerSpec spec,
      ServerSpec.StreamableHttp http,
      HttpClient client,
      List<Map.Entry<String, String>> headers,
      UpstreamLimits limits,
      ConnectionListener listener) {
    String name = spec.toString();
    Function<ConnectionListener, UpstreamConnection> sessionEra =
        heard -> new StreamableHttpConnection(client, http.url(), headers, name, limits, heard);
    Function<ConnectionListener, UpstreamConnection> statelessEra =
        heard -> new StatelessHttpConnection(client, http.url(), headers, name, limits, heard);
    return switch (spec.protocol()) {
      case SESSION -> sessionEra.apply(listener);
      case STATELESS -> {
        StatelessAdapter adapter = new StatelessAdapter(name, listener, null);
        yield adapter.attach(statelessEra.apply(adapter));
      }
      case AUTO -> AutoEraConnection.probingFirst(name, listener, sessionEra, statelessEra);
      case AUTO_SESSION_ERA_FIRST ->
          AutoEraConnection.initializingFirst(name, listener, sessionEra, statelessEra);
    };
  }
}
