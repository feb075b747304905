package dev.mcpsupervisor.http.ops;

import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What a reload may change while the gateway serves: each server's configuration (its key actors
 * are replaced, see {@code SessionSupervisor.reconfigure}). Not yet live, so a reload that changes
 * them is refused whole: which servers there are and their {@code toolPrefix} (the endpoints and
 * the aggregated namespace are built from them at start), and the gateway section (the bind, TLS
 * and cluster never can be; tokens, origins, hosts, identities and limits are read at start).
 */
public final class LiveChanges {

  private static final Map<String, Function<GatewayConfig, Object>> GATEWAY_FIELDS = fields();

  private LiveChanges() {}

  /** The settings {@code next} changes that need a restart, named (never their values). */
  public static List<String> needingRestart(SupervisorConfig running, SupervisorConfig next) {
    List<String> named = new ArrayList<>();
    List<String> added =
        next.servers().keySet().stream()
            .filter(name -> !running.servers().containsKey(name))
            .toList();
    List<String> removed =
        running.servers().keySet().stream()
            .filter(name -> !next.servers().containsKey(name))
            .toList();
    if (!added.isEmpty()) {
      named.add("servers added (" + String.join(", ", added) + ")");
    }
    if (!removed.isEmpty()) {
      named.add("servers removed (" + String.join(", ", removed) + ")");
    }
    running
        .servers()
        .forEach(
            (name, server) -> {
              ServerConfig after = next.servers().get(name);
              if (after != null && !server.toolPrefix().equals(after.toolPrefix())) {
                named.add("servers." + name + ".toolPrefix");
              }
            });
    GatewayConfig was = running.gateway();
    GatewayConfig is = next.gateway();
    if (was == null || is == null) {
      if (was != is) {
        named.add("gateway");
      }
      return named;
    }
    GATEWAY_FIELDS.forEach(
        (field, value) -> {
          if (!Objects.equals(value.apply(was), value.apply(is))) {
            named.add("gateway." + field);
          }
        });
    return named;
  }

  private static Map<String, Function<GatewayConfig, Object>> fields() {
    Map<String, Function<GatewayConfig, Object>> fields = new java.util.LinkedHashMap<>();
    fields.put("host", GatewayConfig::host);
    fields.put("port", GatewayConfig::port);
    fields.put("authTokens", GatewayConfig::namedTokens);
    fields.put("allowedOrigins", GatewayConfig::allowedOrigins);
    fields.put("allowedHosts", GatewayConfig::allowedHosts);
    fields.put("maxBodyBytes", GatewayConfig::maxBodyBytes);
    fields.put("sessionIdleTimeout", GatewayConfig::sessionIdleTimeout);
    fields.put("oauth", GatewayConfig::oauth);
    fields.put("identities", GatewayConfig::identities);
    fields.put("connectionLimits", GatewayConfig::connectionLimits);
    fields.put("sessionLimits", GatewayConfig::sessionLimits);
    fields.put("cluster", GatewayConfig::cluster);
    return java.util.Collections.unmodifiableMap(fields);
  }
}
