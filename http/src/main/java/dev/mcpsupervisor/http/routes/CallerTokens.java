package dev.mcpsupervisor.http.routes;

import dev.mcpsupervisor.http.access.Authentication;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.endpoint.InForce;
import dev.mcpsupervisor.http.endpoint.McpEndpoint;
import dev.mcpsupervisor.protocol.config.CallerHeaders;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import java.util.Map;
import org.apache.pekko.http.javadsl.model.HttpRequest;

/**
 * The caller's own bearer token, taken from a request only for an endpoint with a server that
 * passes it upstream ({@code passCallerToken}): every other request leaves it where it is.
 */
final class CallerTokens {

  private CallerTokens() {}

  /**
   * The token {@code request} presents when {@code caller} is authenticated and a server of the
   * endpoint at {@code path} passes it; else null.
   */
  static String passedBy(InForce.Served served, String path, Identity caller, HttpRequest request) {
    McpEndpoint endpoint = served.endpoints().get(path);
    if (endpoint == null || caller.isAnonymous()) {
      return null;
    }
    Map<String, ServerConfig> servers = served.config().servers();
    boolean passes =
        endpoint.servers().stream()
            .map(servers::get)
            .anyMatch(server -> server != null && CallerHeaders.passesCallerToken(server));
    return passes ? Authentication.bearerToken(request).orElse(null) : null;
  }
}
