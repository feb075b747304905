package dev.mcpsupervisor.http.access;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;

import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.http.stream.McpResponses;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.HashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.RemoteAddress;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Where requests may come from (who they are is {@link Authentication}'s part).
 *
 * <ul>
 *   <li>Host (DNS rebinding): with {@code allowedHosts} configured, only those names (any port, any
 *       case; {@code ["*"]} accepts all) are accepted, a request without Host included. Without it,
 *       bound to a loopback address, only {@code localhost}, {@code 127.0.0.1} and {@code [::1]}
 *       are accepted; a non-loopback bind without it does not start ({@code BindSafety}). Refused
 *       with 403.
 *   <li>Origin: absent is fine (not a browser); a loopback origin is fine when bound to loopback;
 *       otherwise only the configured {@code allowedOrigins}; anything else (including {@code
 *       null}) gets 403.
 * </ul>
 */
public final class AccessControl extends AllDirectives {

  private static final Set<String> LOOPBACK_HOSTS =
      Set.of("localhost", "127.0.0.1", "[::1]", "::1");

  private final boolean loopbackBound;
  private final Set<String> allowedHosts;
  private final Set<String> allowedOrigins = new HashSet<>();
  private final GatewayMetrics metrics;

  public AccessControl(GatewayConfig gateway, GatewayMetrics metrics) {
    this.loopbackBound = gateway.bindsLoopback();
    this.allowedHosts = Set.copyOf(gateway.allowedHosts());
    gateway
        .allowedOrigins()
        .forEach(origin -> normalizedOrigin(origin).ifPresent(allowedOrigins::add));
    this.metrics = metrics;
  }

  /** Host and Origin validation, for every route. */
  public Route checkHostAndOrigin(Supplier<Route> inner) {
    return extractRequest(
        request -> refusalByHostOrOrigin(request).map(this::complete).orElseGet(inner));
  }

  private Optional<HttpResponse> refusalByHostOrOrigin(HttpRequest request) {
    Optional<String> host = request.getHeader("Host").map(header -> hostName(header.value()));
    if (!isAllowedHost(host)) {
      metrics.rejected("forbidden_host");
      return Optional.of(
          McpResponses.error(
              StatusCodes.FORBIDDEN,
              INVALID_REQUEST,
              allowedHosts.isEmpty()
                  ? "Forbidden: Host not allowed"
                  : "Forbidden: Host not allowed (not in gateway.allowedHosts)"));
    }
    Optional<String> origin = request.getHeader("Origin").map(header -> header.value().trim());
    if (origin.isPresent() && !isAllowedOrigin(origin.get())) {
      metrics.rejected("forbidden_origin");
      return Optional.of(
          McpResponses.error(
              StatusCodes.FORBIDDEN, INVALID_REQUEST, "Forbidden: Origin not allowed"));
    }
    return Optional.empty();
  }

  private boolean isAllowedHost(Optional<String> host) {
    if (allowedHosts.contains(GatewayConfig.ANY_HOST)) {
      return true;
    }
    if (!allowedHosts.isEmpty()) {
      return host.isPresent() && allowedHosts.contains(host.get());
    }
    return !loopbackBound || host.isEmpty() || LOOPBACK_HOSTS.contains(host.get());
  }

  private boolean isAllowedOrigin(String origin) {
    Optional<String> normalized = normalizedOrigin(origin);
    if (normalized.isEmpty()) {
      return false;
    }
    if (loopbackBound && LOOPBACK_HOSTS.contains(URI.create(normalized.get()).getHost())) {
      return true;
    }
    return allowedOrigins.contains(normalized.get());
  }

  /**
   * The host part of a Host header value, lower case, without the port; IPv6 literals keep their
   * brackets.
   */
  static String hostName(String hostHeader) {
    String value = hostHeader.trim().toLowerCase(Locale.ROOT);
    if (value.startsWith("[")) {
      int end = value.indexOf(']');
      return end < 0 ? value : value.substring(0, end + 1);
    }
    int colon = value.lastIndexOf(':');
    return colon < 0 ? value : value.substring(0, colon);
  }

  /** The client's address, when Pekko knows it (the server's remote-address attribute is on). */
  public static Optional<InetAddress> clientAddress(HttpRequest request) {
    return request.getAttribute(AttributeKeys.remoteAddress).flatMap(RemoteAddress::getAddress);
  }

  /** Whether the request comes from this machine; an unknown address does not. */
  public static boolean fromLoopback(HttpRequest request) {
    return clientAddress(request).filter(InetAddress::isLoopbackAddress).isPresent();
  }

  /**
   * {@code scheme://host[:port]} in lower case without a default port, or empty when it is no
   * origin.
   */
  static Optional<String> normalizedOrigin(String origin) {
    try {
      URI uri = new URI(origin);
      String scheme = uri.getScheme();
      String host = uri.getHost();
      if (scheme == null || host == null || uri.getRawUserInfo() != null) {
        return Optional.empty();
      }
      scheme = scheme.toLowerCase(Locale.ROOT);
      int port = uri.getPort();
      boolean defaultPort =
          port == -1
              || ("http".equals(scheme) && port == 80)
              || ("https".equals(scheme) && port == 443);
      return Optional.of(
          scheme + "://" + host.toLowerCase(Locale.ROOT) + (defaultPort ? "" : ":" + port));
    } catch (URISyntaxException e) {
      return Optional.empty();
    }
  }
}
