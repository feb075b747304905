package dev.mcpsupervisor.protocol.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The {@code gateway} section.
 *
 * @param authTokens bearer tokens accepted on the MCP endpoints; empty means no authentication
 * @param allowedOrigins Origin header values accepted (besides loopback origins when bound to
 *     loopback)
 * @param allowedHosts Host header names (lower case, without port) accepted; {@code ["*"]} accepts
 *     any; empty keeps the loopback-only check of a loopback bind
 * @param maxBodyBytes requests with larger bodies get 413
 * @param sessionIdleTimeout a downstream session idle this long is ended and its leases released
 * @param namedTokens {@code authTokens} with the identity each stands for, in the same order
 * @param oauth OAuth access tokens accepted besides the static tokens; null: none
 * @param identities per identity name, what it may do; an identity without an entry may use every
 *     server
 * @param maxStreamBufferBytes per open SSE stream, the bytes of events waiting for a slow client;
 *     past it the stream ends with an error (nothing is dropped silently)
 * @param requestHeaderTimeout a connection must deliver a request's headers within this long of its
 *     start or of its previous response, or it is closed
 * @param maxConnections open connections accepted at once; more wait in the accept queue
 * @param maxStreamsPerIdentity long-lived streams one caller may hold open; one more gets 429
 * @param maxDownstreamSessions downstream sessions alive at once; past it a new one gets 503
 * @param maxDownstreamSessionsPerIdentity downstream sessions of one caller identity at once
 * @param maxInflightPerSession requests of one downstream session in flight at once; past it a
 *     request is answered "overloaded"
 * @param maxInflightPerIdentity stateless (2026-07-28) requests of one caller in flight at once
 * @param maxBatchLength messages in one JSON-RPC batch; the requests past it are answered with an
 *     error
 */
public record GatewayConfig(
    String host,
    int port,
    List<String> authTokens,
    List<String> allowedOrigins,
    List<String> allowedHosts,
    long maxBodyBytes,
    Duration sessionIdleTimeout,
    List<NamedToken> namedTokens,
    OAuthConfig oauth,
    Map<String, IdentityPolicy> identities,
    long maxStreamBufferBytes,
    Duration requestHeaderTimeout,
    int maxConnections,
    int maxStreamsPerIdentity,
    int maxDownstreamSessions,
    int maxDownstreamSessionsPerIdentity,
    int maxInflightPerSession,
    int maxInflightPerIdentity,
    int maxBatchLength) {

  public static final long DEFAULT_MAX_STREAM_BUFFER_BYTES = 2L * 1024 * 1024;
  public static final Duration DEFAULT_REQUEST_HEADER_TIMEOUT = Duration.ofSeconds(20);
  public static final int DEFAULT_MAX_CONNECTIONS = 4096;
  public static final int DEFAULT_MAX_STREAMS_PER_IDENTITY = 64;

  /** Shorter bearer tokens are refused at start: they can be guessed. */
  public static final int MIN_TOKEN_LENGTH = 32;

  /** The one {@link #allowedHosts} entry that accepts any Host header. */
  public static final String ANY_HOST = "*";

  public static final int DEFAULT_MAX_DOWNSTREAM_SESSIONS = 1000;
  public static final int DEFAULT_MAX_DOWNSTREAM_SESSIONS_PER_IDENTITY = 100;
  public static final int DEFAULT_MAX_INFLIGHT_PER_SESSION = 64;
  public static final int DEFAULT_MAX_INFLIGHT_PER_IDENTITY = 64;
  public static final int DEFAULT_MAX_BATCH_LENGTH = 64;

  public GatewayConfig {
    authTokens = List.copyOf(authTokens);
    allowedOrigins = List.copyOf(allowedOrigins);
    allowedHosts = List.copyOf(allowedHosts);
    namedTokens = namedTokens.isEmpty() ? defaultNames(authTokens) : List.copyOf(namedTokens);
    if (!namedTokens.stream().map(NamedToken::token).toList().equals(authTokens)) {
      throw new IllegalArgumentException("namedTokens must name exactly the authTokens, in order");
    }
    identities = Map.copyOf(identities);
  }

  /** Static tokens only (named {@code token-<n>}), no OAuth, no per-identity policies. */
  public GatewayConfig(
      String host,
      int port,
      List<String> authTokens,
      List<String> allowedOrigins,
      List<String> allowedHosts,
      long maxBodyBytes,
      Duration sessionIdleTimeout) {
    this(
        host,
        port,
        authTokens,
        allowedOrigins,
        allowedHosts,
        maxBodyBytes,
        sessionIdleTimeout,
        List.of(),
        null,
        Map.of());
  }

  /** With the defaults of the stream, connection and limit settings (those of reference.conf). */
  public GatewayConfig(
      String host,
      int port,
      List<String> authTokens,
      List<String> allowedOrigins,
      List<String> allowedHosts,
      long maxBodyBytes,
      Duration sessionIdleTimeout,
      List<NamedToken> namedTokens,
      OAuthConfig oauth,
      Map<String, IdentityPolicy> identities) {
    this(
        host,
        port,
        authTokens,
        allowedOrigins,
        allowedHosts,
        maxBodyBytes,
        sessionIdleTimeout,
        namedTokens,
        oauth,
        identities,
        DEFAULT_MAX_STREAM_BUFFER_BYTES,
        DEFAULT_REQUEST_HEADER_TIMEOUT,
        DEFAULT_MAX_CONNECTIONS,
        DEFAULT_MAX_STREAMS_PER_IDENTITY,
        DEFAULT_MAX_DOWNSTREAM_SESSIONS,
        DEFAULT_MAX_DOWNSTREAM_SESSIONS_PER_IDENTITY,
        DEFAULT_MAX_INFLIGHT_PER_SESSION,
        DEFAULT_MAX_INFLIGHT_PER_IDENTITY,
        DEFAULT_MAX_BATCH_LENGTH);
  }

  private static List<NamedToken> defaultNames(List<String> tokens) {
    return IntStream.range(0, tokens.size())
        .mapToObj(i -> new NamedToken(NamedToken.defaultName(i), tokens.get(i)))
        .toList();
  }

  /** Whether callers must authenticate: static tokens or OAuth access tokens are configured. */
  public boolean requiresAuthentication() {
    return !authTokens.isEmpty() || oauth != null;
  }

  /** This section bound elsewhere ({@code --host}, {@code --port}); everything else kept. */
  public GatewayConfig withAddress(String newHost, int newPort) {
    return new GatewayConfig(
        newHost,
        newPort,
        authTokens,
        allowedOrigins,
        allowedHosts,
        maxBodyBytes,
        sessionIdleTimeout,
        namedTokens,
        oauth,
        identities,
        maxStreamBufferBytes,
        requestHeaderTimeout,
        maxConnections,
        maxStreamsPerIdentity,
        maxDownstreamSessions,
        maxDownstreamSessionsPerIdentity,
        maxInflightPerSession,
        maxInflightPerIdentity,
        maxBatchLength);
  }

  /** Whether {@link #host} is a loopback address (a name that does not resolve is not). */
  public boolean bindsLoopback() {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  @Override
  public String toString() {
    return "GatewayConfig[host="
        + host
        + ", port="
        + port
        + ", authTokens="
        + authTokens.size()
        + " configured"
        + ", oauth="
        + oauth
        + ", identities="
        + identities
        + ", allowedOrigins="
        + allowedOrigins
        + ", allowedHosts="
        + allowedHosts
        + ", maxBodyBytes="
        + maxBodyBytes
        + ", sessionIdleTimeout="
        + sessionIdleTimeout
        + ", maxStreamBufferBytes="
        + maxStreamBufferBytes
        + ", requestHeaderTimeout="
        + requestHeaderTimeout
        + ", maxConnections="
        + maxConnections
        + ", maxStreamsPerIdentity="
        + maxStreamsPerIdentity
        + ", maxDownstreamSessions="
        + maxDownstreamSessions
        + ", maxDownstreamSessionsPerIdentity="
        + maxDownstreamSessionsPerIdentity
        + ", maxInflightPerSession="
        + maxInflightPerSession
        + ", maxInflightPerIdentity="
        + maxInflightPerIdentity
        + ", maxBatchLength="
        + maxBatchLength
        + "]";
  }
}
