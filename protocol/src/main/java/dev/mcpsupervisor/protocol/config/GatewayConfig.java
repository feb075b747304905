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
    return toBuilder().host(newHost).port(newPort).build();
  }

  /**
   * This section as a private gateway for one local client (the stdio front): on loopback, any free
   * port, {@code token} its only credential, every server allowed, no OAuth, no cluster; its limits
   * kept.
   */
  public GatewayConfig forOneLocalClient(String token) {
    return new Builder(defaults())
        .host("127.0.0.1")
        .port(0)
        .authTokens(List.of(token))
        .maxBodyBytes(maxBodyBytes)
        .sessionIdleTimeout(sessionIdleTimeout)
        .connectionLimits(connectionLimits)
        .sessionLimits(sessionLimits)
        .build();
  }

  /** This section as one node of a cluster; everything else kept. */
  public GatewayConfig withCluster(ClusterConfig newCluster) {
    return toBuilder().cluster(newCluster).build();
  }

  /**
   * The section of a file that has none: every field as reference.conf has it (port 8080, no
   * authentication, a single node).
   */
  public static GatewayConfig defaults() {
    return ConfigLoader.gatewayDefaults();
  }

  /** A section built in code, starting from {@link #defaults()}. */
  public static Builder builder() {
    return new Builder(defaults());
  }

  /** A section like this one but for the fields the builder is given. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Builds a {@link GatewayConfig} in code (tests, embedders); {@link #build()} checks it as the
   * record's constructor does. Named tokens follow the tokens unless set after them.
   */
  public static final class Builder {
    private String host;
    private int port;
    private List<String> authTokens;
    private List<String> allowedOrigins;
    private List<String> allowedHosts;
    private long maxBodyBytes;
    private Duration sessionIdleTimeout;
    private List<NamedToken> namedTokens;
    private OAuthConfig oauth;
    private Map<String, IdentityPolicy> identities;
    private ConnectionLimits connectionLimits;
    private SessionLimits sessionLimits;
    private ClusterConfig cluster;
    private boolean watchConfig;
    private IdentitySecrets identitySecrets;

    private Builder(GatewayConfig from) {
      host = from.host;
      port = from.port;
      authTokens = from.authTokens;
      allowedOrigins = from.allowedOrigins;
      allowedHosts = from.allowedHosts;
      maxBodyBytes = from.maxBodyBytes;
      sessionIdleTimeout = from.sessionIdleTimeout;
      namedTokens = from.namedTokens;
      oauth = from.oauth;
      identities = from.identities;
      connectionLimits = from.connectionLimits;
      sessionLimits = from.sessionLimits;
      cluster = from.cluster;
      watchConfig = from.watchConfig;
      identitySecrets = from.identitySecrets;
    }

    public Builder host(String value) {
      host = value;
      return this;
    }

    public Builder port(int value) {
      port = value;
      return this;
    }

    /** The static tokens, named {@code token-<n>} (see {@link #namedTokens}). */
    public Builder authTokens(List<String> value) {
      authTokens = value;
      namedTokens = List.of();
      return this;
    }

    /** The static tokens with the identity each stands for. */
    public Builder namedTokens(List<NamedToken> value) {
      namedTokens = value;
      authTokens = value.stream().map(NamedToken::token).toList();
      return this;
    }

    public Builder allowedOrigins(List<String> value) {
      allowedOrigins = value;
      return this;
    }

    public Builder allowedHosts(List<String> value) {
      allowedHosts = value;
      return this;
    }

    public Builder maxBodyBytes(long value) {
      maxBodyBytes = value;
      return this;
    }

    public Builder sessionIdleTimeout(Duration value) {
      sessionIdleTimeout = value;
      return this;
    }

    public Builder oauth(OAuthConfig value) {
      oauth = value;
      return this;
    }

    public Builder identities(Map<String, IdentityPolicy> value) {
      identities = value;
      return this;
    }

    public Builder connectionLimits(ConnectionLimits value) {
      connectionLimits = value;
      return this;
    }

    public Builder sessionLimits(SessionLimits value) {
      sessionLimits = value;
      return this;
    }

    public Builder cluster(ClusterConfig value) {
      cluster = value;
      return this;
    }

    public Builder watchConfig(boolean value) {
      watchConfig = value;
      return this;
    }

    public Builder identitySecrets(IdentitySecrets value) {
      identitySecrets = value;
      return this;
    }

    public GatewayConfig build() {
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
          cluster,
          watchConfig,
          identitySecrets);
    }
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
