package dev.mcpsupervisor.http.ops;

import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What a reload may not change while the gateway serves, so that a reload changing it is refused
 * whole. Live: the servers (added, removed, changed, their {@code toolPrefix}: the endpoints and
 * the aggregated namespace follow the configuration in force), and of the gateway section the
 * static tokens, OAuth, identities and their allow-lists, origins, allowed hosts, the limits (read
 * by each request, session or stream as it arrives), turning authentication on or off (and with it
 * whether 2026-07-28 answers may be cached publicly), and {@code sessionIdleTimeout} (read by each
 * idle check, and by each sweep of a cluster node's session replicas). Not live: the bind (host,
 * port, and the connection settings it was made with) and the cluster, which never can be; and
 * {@code watchConfig} (the watch starts with the gateway).
 */
public final class LiveChanges {

  private static final Map<String, Function<GatewayConfig, Object>> GATEWAY_FIELDS = fields();

  private LiveChanges() {}

  /** The settings {@code next} changes that need a restart, named (never their values). */
  public static List<String> needingRestart(SupervisorConfig running, SupervisorConfig next) {
    List<String> named = new ArrayList<>();
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
    Map<String, Function<GatewayConfig, Object>> fields = new LinkedHashMap<>();
    fields.put("host", GatewayConfig::host);
    fields.put("port", GatewayConfig::port);
    fields.put("cluster", GatewayConfig::cluster);
    fields.put(
        "requestHeaderTimeout", gateway -> gateway.connectionLimits().requestHeaderTimeout());
    fields.put("maxConnections", gateway -> gateway.connectionLimits().maxConnections());
    fields.put("watchConfig", GatewayConfig::watchConfig);
    return Collections.unmodifiableMap(fields);
  }
}
