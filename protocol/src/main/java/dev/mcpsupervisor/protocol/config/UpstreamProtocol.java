package dev.mcpsupervisor.protocol.config;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Which MCP era the supervisor speaks to one upstream server. The session above the transport
 * always speaks the session era (initialize, one session); a stateless server is adapted to it.
 */
public enum UpstreamProtocol {
  /**
   * Find out: over stdio, initialize, and go stateless when the server refuses it for 2026-07-28;
   * over HTTP, probe with server/discover and fall back to initialize. Over HTTP each caller's era
   * is served natively where the server speaks it: a session-era caller's calls go to a key of
   * {@link #AUTO_SESSION_ERA_FIRST}.
   */
  AUTO("auto"),
  /**
   * Find out, the session era first: over HTTP an initialize, and server/discover only when it is
   * refused. Not a config value: what an {@code auto} HTTP server is for session-era callers.
   */
  AUTO_SESSION_ERA_FIRST("auto, session era first"),
  /** The session era (2025-11-25 and earlier): initialize, Mcp-Session-Id. No probing. */
  SESSION("2025"),
  /** MCP 2026-07-28 (stateless): server/discover, _meta on every request, no initialize. */
  STATELESS("2026-07-28");

  private final String configName;

  UpstreamProtocol(String configName) {
    this.configName = configName;
  }

  /** The value as config files write it. */
  public String configName() {
    return configName;
  }

  /** The value a config file names, or null when it names none. */
  public static UpstreamProtocol ofConfigName(String name) {
    for (UpstreamProtocol protocol : configurable()) {
      if (protocol.configName.equals(name)) {
        return protocol;
      }
    }
    return null;
  }

  /** "auto, 2025 or 2026-07-28", for error messages. */
  static String allConfigNames() {
    String names =
        Arrays.stream(configurable())
            .map(UpstreamProtocol::configName)
            .collect(Collectors.joining(", "));
    int last = names.lastIndexOf(", ");
    return names.substring(0, last) + " or " + names.substring(last + 2);
  }

  private static UpstreamProtocol[] configurable() {
    return new UpstreamProtocol[] {AUTO, SESSION, STATELESS};
  }
}
