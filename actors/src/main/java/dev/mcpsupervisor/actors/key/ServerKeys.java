package dev.mcpsupervisor.actors.key;

import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which server key serves a server to a caller, computed once from the configuration: one key per
 * server, except a server whose era is found out over Streamable HTTP ({@link
 * ServerConfig#forSessionEraCallers}), which has a key for each era's callers, so that a server of
 * both eras serves each caller natively in its own.
 */
final class ServerKeys {

  /**
   * @param sessionEra the key of the server's session-era callers (of every caller, for most)
   * @param stateless the key of its 2026-07-28 callers, or null when it is the same
   */
  private record Keys(
      String sessionEra, ServerConfig sessionEraServer, String stateless, ServerConfig server) {}

  private final Map<String, Keys> byServer = new HashMap<>();

  ServerKeys(SupervisorConfig config) {
    config
        .servers()
        .forEach(
            (name, server) -> {
              ServerConfig sessionEra = server.forSessionEraCallers();
              byServer.put(
                  name,
                  new Keys(
                      sessionEra.key().id(),
                      sessionEra,
                      sessionEra == server ? null : server.key().id(),
                      server));
            });
  }

  /** The key that serves {@code server} to a caller of its era; null for an unknown server. */
  String keyFor(String server, boolean statelessCaller) {
    Keys keys = byServer.get(server);
    if (keys == null) {
      return null;
    }
    return statelessCaller && keys.stateless() != null ? keys.stateless() : keys.sessionEra();
  }

  /** What the key {@code keyId} of {@code server} speaks to it (its spec, for that key's era). */
  ServerConfig spokenBy(String server, String keyId) {
    Keys keys = byServer.get(server);
    return keyId.equals(keys.stateless()) ? keys.server() : keys.sessionEraServer();
  }

  /** Every key of {@code server} (one or two); none for an unknown server. */
  List<String> keysOf(String server) {
    Keys keys = byServer.get(server);
    if (keys == null) {
      return List.of();
    }
    return keys.stateless() == null
        ? List.of(keys.sessionEra())
        : List.of(keys.sessionEra(), keys.stateless());
  }
}
