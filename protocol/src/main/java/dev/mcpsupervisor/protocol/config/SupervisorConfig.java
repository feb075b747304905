package dev.mcpsupervisor.protocol.config;

import java.util.Map;
import java.util.Optional;

/** A whole, validated configuration: servers by name (in file order) and the gateway section. */
public record SupervisorConfig(Map<String, ServerConfig> servers, GatewayConfig gateway) {

  public SupervisorConfig {
    servers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(servers));
  }

  /** A configuration written in code, with the same defaults and checks as a file's. */
  public static SupervisorConfigBuilder builder() {
    return new SupervisorConfigBuilder();
  }

  public Optional<ServerConfig> server(String name) {
    return Optional.ofNullable(servers.get(name));
  }
}
