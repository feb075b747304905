package dev.mcpsupervisor.protocol.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads who may call the gateway: {@code authTokens} (strings, or {name, token} objects), the
 * {@code oauth} section and the per-identity {@code identities} policies. Secrets are never echoed
 * in errors.
 */
final class AuthConfigReader {

  static final String AUTH_TOKENS = "authTokens";
  static final String OAUTH = "oauth";
  static final String IDENTITIES = "identities";

  static final String NAME = "name";
  static final String TOKEN = "token";
  static final String ISSUER = "issuer";
  static final String JWKS_URI = "jwksUri";
  static final String AUDIENCE = "audience";
  static final String RESOURCE = "resource";
  static final String REQUIRED_SCOPES = "requiredScopes";
  static final String IDENTITY_CLAIM = "identityClaim";
  static final String JWKS_TIMEOUT = "jwksTimeout";
  static final String JWKS_CACHE_TTL = "jwksCacheTtl";
  static final String SERVERS = "servers";

  private static final FieldRules TOKEN_RULES =
      new FieldRules(List.of(NAME, TOKEN), Set.of(), Map.of());
  private static final FieldRules OAUTH_RULES =
      new FieldRules(
          List.of(
              ISSUER,
              JWKS_URI,
              AUDIENCE,
              RESOURCE,
              REQUIRED_SCOPES,
              IDENTITY_CLAIM,
              JWKS_TIMEOUT,
              JWKS_CACHE_TTL),
          Set.of(),
          Map.of());
  private static final FieldRules IDENTITY_RULES =
      new FieldRules(List.of(SERVERS), Set.of(), Map.of());

  private AuthConfigReader() {}

  /** Each token with its identity's name; names are unique. */
  static List<NamedToken> tokens(ConfigSection gateway) {
    List<ConfigValue> elements = gateway.list(AUTH_TOKENS);
    List<NamedToken> tokens = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < elements.size(); i++) {
      String path = gateway.path(AUTH_TOKENS) + "[" + i + "]";
      ConfigValue element = elements.get(i);
      NamedToken named;
      if (element.valueType() == ConfigValueType.OBJECT) {
        ConfigSection object = gateway.section(element, path);
        TOKEN_RULES.check(object);
        if (!object.has(NAME) || !object.has(TOKEN)) {
          throw object.error("must have a name and a token, e.g. {name = ci, token = \"...\"}");
        }
        named =
            new NamedToken(
                identityName(object, NAME),
                checkedToken(object.string(TOKEN), object.origin(), object.path(TOKEN)));
      } else {
        named =
            new NamedToken(
                NamedToken.defaultName(i),
                checkedToken(gateway.string(element, path), gateway.origin(), path));
      }
      if (!names.add(named.name())) {
        throw new ConfigException(
            gateway.origin(), path, "another token is named \"" + named.name() + "\"");
      }
      tokens.add(named);
    }
    return tokens;
  }

  private static String identityName(ConfigSection section, String field) {
    String name = section.nonEmptyString(field);
    if (!name.equals(name.strip())) {
      throw section.error(field, "must not start or end with spaces");
    }
    return name;
  }

  private static String checkedToken(String token, String origin, String path) {
    // the token itself is never echoed
    if (token.isEmpty() || !token.chars().noneMatch(Character::isWhitespace)) {
      throw new ConfigException(origin, path, "must be non-empty, without spaces");
    }
    if (token.length() < GatewayConfig.MIN_TOKEN_LENGTH) {
      throw new ConfigException(
          origin,
          path,
          "must be at least "
              + GatewayConfig.MIN_TOKEN_LENGTH
              + " characters, this one has "
              + token.length()
              + " (e.g. openssl rand -base64 32)");
    }
    return token;
  }

  /**
   * @param defaults the defaults of the optional oauth fields
   * @return null when the gateway section has no oauth section
   */
  static OAuthConfig oauth(ConfigSection gateway, Config defaults) {
    ConfigSection file = gateway.section(OAUTH);
    if (file == null) {
      return null;
    }
    OAUTH_RULES.check(file);
    ConfigSection oauth = file.withDefaults(defaults);
    for (String required : List.of(ISSUER, JWKS_URI, RESOURCE)) {
      if (!oauth.has(required)) {
        throw oauth.error(required, "missing");
      }
    }
    String issuer = oauth.nonEmptyString(ISSUER);
    URI jwksUri = httpUri(oauth, JWKS_URI, true);
    URI resource = httpUri(oauth, RESOURCE, false);
    String audience = oauth.has(AUDIENCE) ? oauth.nonEmptyString(AUDIENCE) : resource.toString();
    List<String> scopes = oauth.stringList(REQUIRED_SCOPES);
    for (int i = 0; i < scopes.size(); i++) {
      if (scopes.get(i).isEmpty() || scopes.get(i).chars().anyMatch(Character::isWhitespace)) {
        throw new ConfigException(
            oauth.origin(),
            oauth.path(REQUIRED_SCOPES) + "[" + i + "]",
            "must be one scope, without spaces");
      }
    }
    return new OAuthConfig(
        issuer,
        jwksUri,
        audience,
        resource,
        scopes,
        oauth.nonEmptyString(IDENTITY_CLAIM),
        oauth.positiveDuration(JWKS_TIMEOUT),
        oauth.positiveDuration(JWKS_CACHE_TTL));
  }

  /**
   * An absolute http(s) URI without fragment; keys fetched over plain http could be swapped on the
   * way, so {@code httpsUnlessLoopback} allows http on loopback only.
   */
  static URI httpUri(ConfigSection section, String field, boolean httpsUnlessLoopback) {
    String text = section.nonEmptyString(field);
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw section.error(field, "\"" + text + "\" is not a URI");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!("https".equals(scheme) || "http".equals(scheme))
        || uri.getHost() == null
        || uri.getRawFragment() != null) {
      throw section.error(
          field, "\"" + text + "\" is not an absolute http(s) URI without fragment");
    }
    if (httpsUnlessLoopback && "http".equals(scheme) && !isLoopback(uri.getHost())) {
      throw section.error(field, "must use https (plain http only on a loopback address)");
    }
    return uri;
  }

  private static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /**
   * Per identity name, its policy. Without OAuth every name must be a static token's (a typo would
   * otherwise leave the real identity unrestricted); every server named must exist.
   */
  static Map<String, IdentityPolicy> identities(
      ConfigSection gateway, Set<String> serverNames, List<NamedToken> tokens, boolean oauth) {
    ConfigSection section = gateway.section(IDENTITIES);
    if (section == null) {
      return Map.of();
    }
    Set<String> tokenNames = new HashSet<>();
    tokens.forEach(token -> tokenNames.add(token.name()));
    Map<String, IdentityPolicy> identities = new LinkedHashMap<>();
    for (Map.Entry<String, ConfigValue> member : section.membersInFileOrder()) {
      String name = member.getKey();
      ConfigSection identity = section.section(name);
      IDENTITY_RULES.check(identity);
      if (!oauth && !tokenNames.contains(name)) {
        throw section.error(
            name,
            "no token is named \""
                + name
                + "\" (name tokens as authTokens = [{name = \""
                + name
                + "\", token = \"...\"}], or configure gateway.oauth)");
      }
      if (!identity.has(SERVERS)) {
        identities.put(name, IdentityPolicy.UNRESTRICTED);
        continue;
      }
      List<String> servers = identity.stringList(SERVERS);
      for (int i = 0; i < servers.size(); i++) {
        if (!serverNames.contains(servers.get(i))) {
          throw new ConfigException(
              identity.origin(),
              identity.path(SERVERS) + "[" + i + "]",
              "no server is named \"" + servers.get(i) + "\"");
        }
      }
      identities.put(name, new IdentityPolicy(servers));
    }
    return identities;
  }
}
