package dev.mcpsupervisor.protocol.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 * @param connectionLimits what one connection and one caller's streams may hold
 * @param sessionLimits how many downstream sessions and requests may be held at once
 * @param cluster this gateway as one node of a cluster; null: a single node
 * @param watchConfig whether the gateway reloads its configuration file when it changes
 * @param identitySecrets what servers' {@code ${identity:NAME}} headers are filled with, per
 *     identity ({@code identitySecrets}, a file); {@link IdentitySecrets#NONE} without one
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
    ConnectionLimits connectionLimits,
    SessionLimits sessionLimits,
    ClusterConfig cluster,
    boolean watchConfig,
    IdentitySecrets identitySecrets) {

  /** Shorter bearer tokens are refused at start: they can be guessed. */
  public static final int MIN_TOKEN_LENGTH = 32;

  /** The one {@link #allowedHosts} entry that accepts any Host header. */
  public static final String ANY_HOST = "*";

  public GatewayConfig {
    authTokens = List.copyOf(authTokens);
    allowedOrigins = List.copyOf(allowedOrigins);
    allowedHosts = List.copyOf(allowedHosts);
    namedTokens = namedTokens.isEmpty() ? defaultNames(authTokens) : List.copyOf(namedTokens);
    if (!namedTokens.stream().map(NamedToken::token).toList().equals(authTokens)) {
      throw new IllegalArgumentException("namedTokens must name exactly the authTokens, in order");
    }
    identities = Map.copyOf(identities);
    Objects.requireNonNull(connectionLimits, "connectionLimits");
    Objects.requireNonNull(sessionLimits, "sessionLimits");
    identitySecrets = identitySecrets == null ? IdentitySecrets.NONE : identitySecrets;
  }

  /** No identity secrets. */
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
      Map<String, IdentityPolicy> identities,
      ConnectionLimits connectionLimits,
      SessionLimits sessionLimits,
      ClusterConfig cluster,
      boolean watchConfig) {
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
        connectionLimits,
        sessionLimits,
        cluster,
        watchConfig,
        null);
  }

  /** Not watching its file. */
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
      Map<String, IdentityPolicy> identities,
      ConnectionLimits connectionLimits,
      SessionLimits sessionLimits,
      ClusterConfig cluster) {
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
        connectionLimits,
        sessionLimits,
        cluster,
        false);
  }

  /** A single node (no {@code cluster} section). */
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
      Map<String, IdentityPolicy> identities,
      ConnectionLimits connectionLimits,
      SessionLimits sessionLimits) {
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
        connectionLimits,
        sessionLimits,
        null);
  }

  /**
   * Static tokens only (named {@code token-<n>}), no OAuth, no per-identity policies, the default
   * limits (those of reference.conf).
   */
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
        Map.of(),
        ConnectionLimits.defaults(),
        SessionLimits.defaults());
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
        connectionLimits,
        sessionLimits,
        cluster,
        watchConfig,
        identitySecrets);
  }

  /**
   * This section as a private gateway for one local client (the stdio front): on loopback, any free
   * port, {@code token} its only credential, every server allowed, no OAuth, no cluster; its limits
   * kept.
   */
  public GatewayConfig forOneLocalClient(String token) {
    return new GatewayConfig(
        "127.0.0.1",
        0,
        List.of(token),
        List.of(),
        List.of(),
        maxBodyBytes,
        sessionIdleTimeout,
        List.of(),
        null,
        Map.of(),
        connectionLimits,
        sessionLimits,
        null);
  }

  /** This section as one node of a cluster; everything else kept. */
  public GatewayConfig withCluster(ClusterConfig newCluster) {
    return new GatewayConfig(
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
        connectionLimits,
        sessionLimits,
        newCluster,
        watchConfig,
        identitySecrets);
  }

  /** Whether {@link #host} is a loopback address (a name that does not resolve is not). */
  public boolean bindsLoopback() {
    return isLoopback(host);
  }

  /** Whether {@code host} is a loopback address (a name that does not resolve is not). */
  static boolean isLoopback(String host) {
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
        + ", connectionLimits="
        + connectionLimits
        + ", sessionLimits="
        + sessionLimits
        + ", cluster="
        + cluster
        + ", watchConfig="
        + watchConfig
        + ", identitySecrets="
        + identitySecrets
        + "]";
  }
}
