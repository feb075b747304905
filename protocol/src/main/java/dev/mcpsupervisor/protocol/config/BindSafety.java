package dev.mcpsupervisor.protocol.config;

import java.util.Optional;

/**
 * Whether a gateway section is safe to serve: bound to anything but loopback, it is reachable by
 * the network, so it needs bearer tokens or OAuth (or the operator's explicit {@code
 * --allow-unauthenticated}) and an {@code allowedHosts} list (or {@code ["*"]}), without which a
 * DNS-rebound name would be served.
 */
public final class BindSafety {

  private BindSafety() {}

  /**
   * @param allowUnauthenticated the operator accepts a non-loopback bind without tokens
   * @return the one-line reason not to start, or empty when the section is safe to serve
   */
  public static Optional<String> refusal(GatewayConfig gateway, boolean allowUnauthenticated) {
    if (gateway.bindsLoopback()) {
      return Optional.empty();
    }
    if (!gateway.requiresAuthentication() && !allowUnauthenticated) {
      return Optional.of(
          gateway.host()
              + " is not a loopback address and gateway.authTokens is empty: set tokens (at least "
              + GatewayConfig.MIN_TOKEN_LENGTH
              + " characters each) or gateway.oauth, or pass --allow-unauthenticated");
    }
    if (gateway.allowedHosts().isEmpty()) {
      return Optional.of(
          gateway.host()
              + " is not a loopback address and gateway.allowedHosts is empty: list the names"
              + " clients reach the gateway by, or [\"*\"] to accept any Host header");
    }
    return Optional.empty();
  }
}
