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
 */
public record GatewayConfig(
    String host,
    int port,
    List<String> authTokens,
    List<String> allowedOrigins,
    List<String> allowedHosts,
    long maxBodyBytes,
    Duration sessionIdleTimeout) {

  /** Shorter bearer tokens are refused at start: they can be guessed. */
  public static final int MIN_TOKEN_LENGTH = 32;

  /** The one {@link #allowedHosts} entry that accepts any Host header. */
  public static final String ANY_HOST = "*";

  public GatewayConfig {
    authTokens = List.copyOf(authTokens);
    allowedOrigins = List.copyOf(allowedOrigins);
    allowedHosts = List.copyOf(allowedHosts);
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
        + "]";
  }
}
