package dev.mcpsupervisor.protocol.config;

import java.time.Duration;

/**
 * One configured server: its name (the key under {@code mcpServers}), how to reach it, and its
 * pooling policy.
 *
 * @param toolPrefix the prefix of its tools and prompts on the aggregated endpoint (default: the
 *     name)
 * @param upstreamLimits what the server may send, and how long HTTP waits for it
 */
public record ServerConfig(
    String name,
    ServerSpec spec,
    Isolation isolation,
    int maxSessions,
    int maxInflightPerSession,
    Duration requestTimeout,
    Duration idleTimeout,
    String toolPrefix,
    UpstreamLimits upstreamLimits) {

  /** A server with the default {@link UpstreamLimits}. */
  public ServerConfig(
      String name,
      ServerSpec spec,
      Isolation isolation,
      int maxSessions,
      int maxInflightPerSession,
      Duration requestTimeout,
      Duration idleTimeout,
      String toolPrefix) {
    this(
        name,
        spec,
        isolation,
        maxSessions,
        maxInflightPerSession,
        requestTimeout,
        idleTimeout,
        toolPrefix,
        UpstreamLimits.defaults(requestTimeout));
  }

  public ServerKey key() {
    return ServerKey.of(name, spec);
  }
}
