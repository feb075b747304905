package dev.mcpsupervisor.protocol.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;

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
    int maxDownstreamSessions,
    int maxDownstreamSessionsPerIdentity,
    int maxInflightPerSession,
    int maxInflightPerIdentity,
    int maxBatchLength) {

  /** Shorter bearer tokens are refused at start: they can be guessed. */
  public static final int MIN_TOKEN_LENGTH = 32;

  /** The one {@link #allowedHosts} entry that accepts any Host header. */
  public static final String ANY_HOST = "*";

  public static final int DEFAULT_MAX_DOWNSTREAM_SESSIONS = 1000;
  public static final int DEFAULT_MAX_DOWNSTREAM_SESSIONS_PER_IDENTITY = 100;
  public static final int DEFAULT_MAX_INFLIGHT_PER_SESSION = 64;
  public static final int DEFAULT_MAX_INFLIGHT_PER_IDENTITY = 64;
  public static final int DEFAULT_MAX_BATCH_LENGTH = 100;

  /** Without the limits: the defaults of reference.conf. */
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
        DEFAULT_MAX_DOWNSTREAM_SESSIONS,
        DEFAULT_MAX_DOWNSTREAM_SESSIONS_PER_IDENTITY,
        DEFAULT_MAX_INFLIGHT_PER_SESSION,
        DEFAULT_MAX_INFLIGHT_PER_IDENTITY,
        DEFAULT_MAX_BATCH_LENGTH);
  }

  public GatewayConfig {
    authTokens = List.copyOf(authTokens);
    allowedOrigins = List.copyOf(allowedOrigins);
    allowedHosts = List.copyOf(allowedHosts);
  }

  /** This configuration bound elsewhere (the command line's --host and --port). */
  public GatewayConfig withAddress(String newHost, int newPort) {
    return new GatewayConfig(
        newHost,
        newPort,
        authTokens,
        allowedOrigins,
        allowedHosts,
        maxBodyBytes,
        sessionIdleTimeout,
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
        + ", allowedOrigins="
        + allowedOrigins
        + ", allowedHosts="
        + allowedHosts
        + ", maxBodyBytes="
        + maxBodyBytes
        + ", sessionIdleTimeout="
        + sessionIdleTimeout
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
