package dev.mcpsupervisor.protocol.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Reads and validates the {@code gateway} section over its defaults. */
final class GatewayConfigReader {

  static final String HOST = "host";
  static final String PORT = "port";
  static final String ALLOWED_ORIGINS = "allowedOrigins";
  static final String ALLOWED_HOSTS = "allowedHosts";
  static final String MAX_BODY_BYTES = "maxBodyBytes";
  static final String SESSION_IDLE_TIMEOUT = "sessionIdleTimeout";
  static final String MAX_STREAM_BUFFER_BYTES = "maxStreamBufferBytes";
  static final String REQUEST_HEADER_TIMEOUT = "requestHeaderTimeout";
  static final String MAX_CONNECTIONS = "maxConnections";
  static final String MAX_STREAMS_PER_IDENTITY = "maxStreamsPerIdentity";
  static final String MAX_DOWNSTREAM_SESSIONS = "maxDownstreamSessions";
  static final String MAX_DOWNSTREAM_SESSIONS_PER_IDENTITY = "maxDownstreamSessionsPerIdentity";
  static final String MAX_INFLIGHT_PER_DOWNSTREAM_SESSION = "maxInflightPerDownstreamSession";

  /**
   * The old name of {@link #MAX_INFLIGHT_PER_DOWNSTREAM_SESSION}, still read with a warning: a
   * server's {@code maxInflightPerSession} is another limit (an upstream session's).
   */
  static final String DEPRECATED_MAX_INFLIGHT_PER_SESSION = "maxInflightPerSession";

  static final String MAX_INFLIGHT_PER_IDENTITY = "maxInflightPerIdentity";
  static final String MAX_BATCH_LENGTH = "maxBatchLength";
  static final String WATCH_CONFIG = "watchConfig";
  static final String IDENTITY_SECRETS = "identitySecrets";

  static final FieldRules RULES =
      new FieldRules(
          List.of(
              HOST,
              PORT,
              AuthConfigReader.AUTH_TOKENS,
              ALLOWED_ORIGINS,
              ALLOWED_HOSTS,
              MAX_BODY_BYTES,
              SESSION_IDLE_TIMEOUT,
              AuthConfigReader.OAUTH,
              AuthConfigReader.IDENTITIES,
              MAX_STREAM_BUFFER_BYTES,
              REQUEST_HEADER_TIMEOUT,
              MAX_CONNECTIONS,
              MAX_STREAMS_PER_IDENTITY,
              MAX_DOWNSTREAM_SESSIONS,
              MAX_DOWNSTREAM_SESSIONS_PER_IDENTITY,
              MAX_INFLIGHT_PER_DOWNSTREAM_SESSION,
              MAX_INFLIGHT_PER_IDENTITY,
              MAX_BATCH_LENGTH,
              ClusterConfigReader.CLUSTER,
              WATCH_CONFIG,
              IDENTITY_SECRETS,
              DEPRECATED_MAX_INFLIGHT_PER_SESSION),
          Set.of(),
          Map.of("auth", "write the bearer tokens as authTokens = [\"...\"]"));

  private static final int MAX_PORT = 65_535;

  private static final Logger log = LoggerFactory.getLogger(GatewayConfigReader.class);

  private GatewayConfigReader() {}

  /**
   * @param gateway the file's section (empty when the file has none)
   * @param oauthDefaults the defaults of the optional {@code oauth} fields
   * @param clusterDefaults the defaults of the optional {@code cluster} fields
   * @param serverNames the configured servers, which {@code identities} may name
   */
  static GatewayConfig read(
      ConfigSection gateway,
      Config defaults,
      Config oauthDefaults,
      Config clusterDefaults,
      Set<String> serverNames) {
    RULES.check(gateway);
    ConfigSection section = gateway.withDefaults(defaults);
    String host = section.nonEmptyString(HOST);
    List<NamedToken> tokens = AuthConfigReader.tokens(section);
    OAuthConfig oauth = AuthConfigReader.oauth(gateway, oauthDefaults);
    return new GatewayConfig(
        host,
        section.integer(PORT, 0, MAX_PORT),
        tokens.stream().map(NamedToken::token).toList(),
        allowedOrigins(section),
        allowedHosts(section),
        section.positiveBytes(MAX_BODY_BYTES),
        section.positiveDuration(SESSION_IDLE_TIMEOUT),
        tokens,
        oauth,
        AuthConfigReader.identities(gateway, serverNames, tokens, oauth != null),
        connectionLimits(section),
        sessionLimits(section, inflightPerDownstreamSessionField(gateway, section)),
        ClusterConfigReader.read(gateway, clusterDefaults, host),
        section.bool(WATCH_CONFIG, false),
        identitySecrets(gateway));
  }

  /**
   * The file {@code identitySecrets} names (relative to the working directory), read now: a reload
   * reads it again.
   */
  private static IdentitySecrets identitySecrets(ConfigSection gateway) {
    if (!gateway.has(IDENTITY_SECRETS)) {
      return IdentitySecrets.NONE;
    }
    return IdentitySecrets.read(
        java.nio.file.Path.of(gateway.nonEmptyString(IDENTITY_SECRETS)),
        gateway.origin(),
        gateway.path(IDENTITY_SECRETS));
  }

  static ConnectionLimits connectionLimits(ConfigSection section) {
    return new ConnectionLimits(
        section.positiveBytes(MAX_STREAM_BUFFER_BYTES),
        section.positiveDuration(REQUEST_HEADER_TIMEOUT),
        section.integer(MAX_CONNECTIONS, 1, Integer.MAX_VALUE),
        section.integer(MAX_STREAMS_PER_IDENTITY, 1, Integer.MAX_VALUE));
  }

  /** The limits of a section that holds every field (the defaults). */
  static SessionLimits sessionLimits(ConfigSection defaults) {
    ConfigSection none = new ConfigSection(ConfigFactory.empty(), defaults.origin(), "");
    return sessionLimits(defaults, inflightPerDownstreamSessionField(none, defaults));
  }

  /**
   * @param inflightField where the downstream session's in-flight limit is read (its name, or its
   *     old name)
   */
  private static SessionLimits sessionLimits(ConfigSection section, String inflightField) {
    return new SessionLimits(
        section.integer(MAX_DOWNSTREAM_SESSIONS, 1, Integer.MAX_VALUE),
        section.integer(MAX_DOWNSTREAM_SESSIONS_PER_IDENTITY, 1, Integer.MAX_VALUE),
        section.integer(inflightField, 1, Integer.MAX_VALUE),
        section.integer(MAX_INFLIGHT_PER_IDENTITY, 1, Integer.MAX_VALUE),
        section.integer(MAX_BATCH_LENGTH, 1, Integer.MAX_VALUE));
  }

  /**
   * {@link #MAX_INFLIGHT_PER_DOWNSTREAM_SESSION}, unless only its old name is set (in the file, or
   * over the defaults by a system property): that one then, with a warning. Both in the file is an
   * error.
   *
   * @param file the file's section
   * @param section the file's section over the defaults
   */
  private static String inflightPerDownstreamSessionField(
      ConfigSection file, ConfigSection section) {
    if (file.has(MAX_INFLIGHT_PER_DOWNSTREAM_SESSION)) {
      if (file.has(DEPRECATED_MAX_INFLIGHT_PER_SESSION)) {
        throw file.error(
            DEPRECATED_MAX_INFLIGHT_PER_SESSION,
            "use either "
                + MAX_INFLIGHT_PER_DOWNSTREAM_SESSION
                + " or its old name "
                + DEPRECATED_MAX_INFLIGHT_PER_SESSION
                + ", not both");
      }
      return MAX_INFLIGHT_PER_DOWNSTREAM_SESSION;
    }
    if (!section.has(DEPRECATED_MAX_INFLIGHT_PER_SESSION)) {
      return MAX_INFLIGHT_PER_DOWNSTREAM_SESSION;
    }
    log.warn(
        "{}: {} is deprecated; write {} (a server's maxInflightPerSession is another limit, its"
            + " upstream sessions')",
        section.origin(),
        section.path(DEPRECATED_MAX_INFLIGHT_PER_SESSION),
        MAX_INFLIGHT_PER_DOWNSTREAM_SESSION);
    return DEPRECATED_MAX_INFLIGHT_PER_SESSION;
  }

  /** Lower case; an IPv6 literal in brackets, as it appears in a Host header. */
  private static List<String> allowedHosts(ConfigSection gateway) {
    List<String> hosts = gateway.stringList(ALLOWED_HOSTS);
    for (int i = 0; i < hosts.size(); i++) {
      String host = hosts.get(i);
      boolean wildcard = GatewayConfig.ANY_HOST.equals(host);
      if (wildcard ? hosts.size() > 1 : !isHostName(host)) {
        throw new ConfigException(
            gateway.origin(),
            gateway.path(ALLOWED_HOSTS) + "[" + i + "]",
            wildcard
                ? "\"*\" accepts any host and must be the only entry"
                : "\""
                    + host
                    + "\" is not a host name (expected a name or address without scheme or port,"
                    + " e.g. \"gateway.example.com\", or \"*\" for any)");
      }
    }
    return hosts.stream().map(GatewayConfigReader::normalizedHost).toList();
  }

  private static boolean isHostName(String text) {
    if (text.isEmpty() || text.chars().anyMatch(c -> Character.isWhitespace(c) || c == '/')) {
      return false;
    }
    String bare =
        text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
    // a colon is only part of an IPv6 literal; "name:8080" carries a port
    return !bare.contains(":")
        || bare.matches("[0-9a-fA-F:.]+") && bare.indexOf(':') != bare.lastIndexOf(':');
  }

  private static String normalizedHost(String host) {
    String lower = host.toLowerCase(Locale.ROOT);
    return lower.contains(":") && !lower.startsWith("[") ? "[" + lower + "]" : lower;
  }

  private static List<String> allowedOrigins(ConfigSection gateway) {
    List<String> origins = gateway.stringList(ALLOWED_ORIGINS);
    for (int i = 0; i < origins.size(); i++) {
      if (!isOrigin(origins.get(i))) {
        throw new ConfigException(
            gateway.origin(),
            gateway.path(ALLOWED_ORIGINS) + "[" + i + "]",
            "\""
                + origins.get(i)
                + "\" is not an origin (expected scheme://host[:port], e.g. \"https://app.example.com\")");
      }
    }
    return origins;
  }

  /** What browsers send in Origin: scheme, host, optional port; nothing else. */
  private static boolean isOrigin(String text) {
    try {
      URI uri = new URI(text);
      return uri.getScheme() != null
          && uri.getHost() != null
          && uri.getRawUserInfo() == null
          && (uri.getRawPath() == null || uri.getRawPath().isEmpty())
          && uri.getRawQuery() == null
          && uri.getRawFragment() == null;
    } catch (URISyntaxException e) {
      return false;
    }
  }
}
