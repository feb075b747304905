package dev.mcpsupervisor.protocol.config;

import java.time.Duration;
import java.util.List;

/**
 * The {@code gateway} section.
 *
 * @param authTokens bearer tokens accepted on the MCP endpoints; empty means no authentication
 * @param allowedOrigins Origin header values accepted (besides loopback origins when bound to
 *     loopback)
 * @param maxBodyBytes requests with larger bodies get 413
 * @param sessionIdleTimeout a downstream session idle this long is ended and its leases released
 */
public record GatewayConfig(
    String host,
    int port,
    List<String> authTokens,
    List<String> allowedOrigins,
    long maxBodyBytes,
    Duration sessionIdleTimeout) {

  public GatewayConfig {
    authTokens = List.copyOf(authTokens);
    allowedOrigins = List.copyOf(allowedOrigins);
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
        + ", maxBodyBytes="
        + maxBodyBytes
        + ", sessionIdleTimeout="
        + sessionIdleTimeout
        + "]";
  }
}
