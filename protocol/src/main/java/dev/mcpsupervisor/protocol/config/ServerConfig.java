package dev.mcpsupervisor.protocol.config;

import java.time.Duration;

/**
 * One configured server: its name (the key under {@code mcpServers}), how to reach it, and its
 * pooling policy.
 *
 * @param toolPrefix the prefix of its tools and prompts on the aggregated endpoint (default: the
 *     name)
 */
public record ServerConfig(
    String name,
    ServerSpec spec,
    Isolation isolation,
    int maxSessions,
    int maxInflightPerSession,
    Duration requestTimeout,
    Duration idleTimeout,
    String toolPrefix) {

  public ServerKey key() {
    return ServerKey.of(name, spec);
  }
}
