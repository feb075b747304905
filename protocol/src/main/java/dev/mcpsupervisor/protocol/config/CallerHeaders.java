package dev.mcpsupervisor.protocol.config;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Headers that name the caller: a server's header value may hold {@code ${identity:NAME}}, filled
 * for each caller from the operator's {@link IdentitySecrets}, and a server of {@code
 * passCallerToken: true} sends {@code Authorization: Bearer} with the token its caller presented to
 * the gateway, or one exchanged for it ({@code tokenExchange}). Such a server acts as its caller:
 * its upstream sessions are never shared between identities, nor between two tokens of one.
 */
public final class CallerHeaders {

  /** One placeholder; a name is letters, digits, '.', '-' and '_'. */
  static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{identity:([A-Za-z0-9_.-]+)}");

  /**
   * The caller's own bearer token ({@code passCallerToken}): not a name a configuration file can
   * write, only the reader puts it in.
   */
  private static final String CALLER_TOKEN = "${caller:token}";

  static final String AUTHORIZATION = "Authorization";

  static final String BEARER_CALLER_TOKEN = "Bearer " + CALLER_TOKEN;

  /** Either placeholder: an identity's name (group 1), or the caller's token (no group 1). */
  private static final Pattern ANY =
      Pattern.compile(PLACEHOLDER.pattern() + "|" + Pattern.quote(CALLER_TOKEN));

  private CallerHeaders() {}

  /** What a server is for one caller: its headers filled in, or the first name it lacks. */
  public sealed interface Resolution {
    /** The server with the caller's values in its headers. */
    record Resolved(ServerConfig server) implements Resolution {}

    /** The caller has no value for {@code name}. */
    record Missing(String name) implements Resolution {}

    /** The server passes the caller's token and the caller presented none. */
    record NoToken() implements Resolution {}
  }

  /** The names {@code server}'s headers use, in order; none for a server shared by everyone. */
  public static Set<String> namesIn(ServerConfig server) {
    Set<String> names = new LinkedHashSet<>();
    headersOf(server.spec())
        .values()
        .forEach(
            value -> {
              Matcher placeholder = PLACEHOLDER.matcher(value);
              while (placeholder.find()) {
                names.add(placeholder.group(1));
              }
            });
    return names;
  }

  /** Whether {@code server} sends its caller's own bearer token ({@code passCallerToken}). */
  public static boolean passesCallerToken(ServerConfig server) {
    return headersOf(server.spec()).values().stream().anyMatch(v -> v.contains(CALLER_TOKEN));
  }

  /**
   * Whether {@code server} exchanges its caller's access token for one of its own ({@code
   * tokenExchange}): its {@code Authorization} header then holds the caller's token, for the
   * connector to exchange.
   */
  public static boolean exchangesCallerToken(ServerConfig server) {
    return server.spec() instanceof ServerSpec.StreamableHttp http && http.tokenExchange() != null;
  }

  /** Whether {@code server} acts as each caller (its headers name the identity or its token). */
  public static boolean actsAsCaller(ServerConfig server) {
    return passesCallerToken(server) || !namesIn(server).isEmpty();
  }

  /**
   * {@code server} as it acts for {@code identity} presenting {@code token} (null: none): every
   * placeholder replaced by that identity's value or that token, or what it lacks.
   */
  public static Resolution resolve(
      ServerConfig server, String identity, String token, IdentitySecrets secrets) {
    Map<String, String> filled = new LinkedHashMap<>();
    for (Map.Entry<String, String> header : headersOf(server.spec()).entrySet()) {
      Matcher placeholder = ANY.matcher(header.getValue());
      StringBuilder value = new StringBuilder();
      while (placeholder.find()) {
        String name = placeholder.group(1);
        if (name == null && token == null) {
          return new Resolution.NoToken();
        }
        String secret =
            name == null
                ? token
                : identity == null ? null : secrets.value(identity, name).orElse(null);
        if (secret == null) {
          return new Resolution.Missing(name);
        }
        placeholder.appendReplacement(value, Matcher.quoteReplacement(secret));
      }
      placeholder.appendTail(value);
      filled.put(header.getKey(), value.toString());
    }
    return new Resolution.Resolved(server.withSpec(withHeaders(server.spec(), filled)));
  }

  private static Map<String, String> headersOf(ServerSpec spec) {
    if (spec instanceof ServerSpec.StreamableHttp http) {
      return http.headers();
    }
    if (spec instanceof ServerSpec.Sse sse) {
      return sse.headers();
    }
    return Map.of();
  }

  private static ServerSpec withHeaders(ServerSpec spec, Map<String, String> headers) {
    if (spec instanceof ServerSpec.StreamableHttp http) {
      return http.withHeaders(headers);
    }
    if (spec instanceof ServerSpec.Sse sse) {
      return new ServerSpec.Sse(sse.url(), headers);
    }
    return spec;
  }
}
