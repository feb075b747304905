package dev.mcpsupervisor.actors.key;

import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.protocol.config.CallerHeaders;
import dev.mcpsupervisor.protocol.config.IdentitySecrets;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerKey;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which server key serves a server to a caller, computed once from the configuration: one key per
 * server, except a server whose era is found out over Streamable HTTP ({@link
 * ServerConfig#forSessionEraCallers}), which has a key for each era's callers, so that a server of
 * both eras serves each caller natively in its own. A server that acts as its caller ({@link
 * CallerHeaders}) has keys of its own for each identity, its headers filled with that identity's
 * secrets (resolved on the identity's first call): no two identities ever share its sessions.
 */
final class ServerKeys {

  /**
   * @param sessionEra the key of the server's session-era callers (of every caller, for most)
   * @param stateless the key of its 2026-07-28 callers, or null when it is the same
   */
  private record Keys(
      String sessionEra, ServerConfig sessionEraServer, String stateless, ServerConfig server) {

    static Keys of(ServerConfig server, String keyName) {
      ServerConfig sessionEra = server.forSessionEraCallers();
      return new Keys(
          idOf(keyName, sessionEra),
          sessionEra,
          sessionEra == server ? null : idOf(keyName, server),
          server);
    }

    private static String idOf(String keyName, ServerConfig server) {
      return new ServerKey(keyName, server.key().digest()).id();
    }

    String keyFor(boolean statelessCaller) {
      return statelessCaller && stateless != null ? stateless : sessionEra;
    }

    List<String> ids() {
      return stateless == null ? List.of(sessionEra) : List.of(sessionEra, stateless);
    }
  }

  /**
   * One server as it acts for one identity presenting one token (null but for {@code
   * passCallerToken} servers).
   */
  private record Acting(String server, String identity, String token) {
    @Override
    public String toString() { // never the token
      return server + "@" + identity;
    }
  }

  /**
   * The key a caller is served by, or why it cannot be.
   *
   * @param keyId null when refused
   * @param refused null when served
   */
  record Choice(String keyId, JsonRpcError refused) {}

  private final Map<String, Keys> byServer = new HashMap<>();

  private final Map<String, ServerConfig> servers;
  private final IdentitySecrets secrets;

  /** The identities served so far by servers that act as their caller. */
  private final Map<Acting, Keys> acting = new HashMap<>();

  ServerKeys(SupervisorConfig config) {
    this.servers = config.servers();
    this.secrets =
        config.gateway() == null ? IdentitySecrets.NONE : config.gateway().identitySecrets();
    servers.forEach((name, server) -> byServer.put(name, Keys.of(server, name)));
  }

  /** The key that serves {@code server} to a caller of its era; null for an unknown server. */
  String keyFor(String server, boolean statelessCaller) {
    Keys keys = byServer.get(server);
    return keys == null ? null : keys.keyFor(statelessCaller);
  }

  /**
   * The key that serves {@code server} (a known one) to a caller of its era acting as {@code
   * identity} (null: a caller of no identity), or the error when the server acts as its caller and
   * the identity has no value for one of its names.
   */
  Choice choose(String server, boolean statelessCaller, String identity, String token) {
    ServerConfig config = servers.get(server);
    if (!CallerHeaders.actsAsCaller(config)) {
      return new Choice(keyFor(server, statelessCaller), null);
    }
    // a key per token too: a caller's new token gets a new upstream session (the key's id holds
    // an HMAC of the filled headers, never the token)
    Acting as =
        new Acting(server, identity, CallerHeaders.passesCallerToken(config) ? token : null);
    Keys keys = acting.get(as);
    if (keys == null) {
      CallerHeaders.Resolution resolution =
          CallerHeaders.resolve(config, identity, as.token(), secrets);
      if (resolution instanceof CallerHeaders.Resolution.Missing missing) {
        // not remembered: only identities that are served take room here
        return new Choice(
            null, SupervisorErrors.missingCredential(server, identity, missing.name()));
      }
      if (resolution instanceof CallerHeaders.Resolution.NoToken) {
        return new Choice(null, SupervisorErrors.missingCallerToken(server));
      }
      // the identity is in the key's name: the operations page shows whom a session acts as
      keys =
          Keys.of(
              ((CallerHeaders.Resolution.Resolved) resolution).server(), server + "@" + identity);
      acting.put(as, keys);
    }
    return new Choice(keys.keyFor(statelessCaller), null);
  }

  /** What the key {@code keyId} of {@code server} speaks to it (its spec, for that key's era). */
  ServerConfig spokenBy(String server, String keyId) {
    Keys keys = byServer.get(server);
    for (Map.Entry<Acting, Keys> entry : acting.entrySet()) {
      if (entry.getKey().server().equals(server) && entry.getValue().ids().contains(keyId)) {
        keys = entry.getValue();
      }
    }
    return keyId.equals(keys.stateless()) ? keys.server() : keys.sessionEraServer();
  }

  /**
   * Every key of {@code server} (one or two, and those of each identity served); none if unknown.
   */
  List<String> keysOf(String server) {
    Keys keys = byServer.get(server);
    if (keys == null) {
      return List.of();
    }
    List<String> ids = new ArrayList<>(keys.ids());
    acting.forEach(
        (as, actingKeys) -> {
          if (as.server().equals(server)) {
            ids.addAll(actingKeys.ids());
          }
        });
    return ids;
  }

  /**
   * Serves here the identities {@code previous} served, and answers the keys of theirs this
   * configuration no longer chooses (a secret changed or went away, or the server changed): they
   * retire.
   */
  List<String> carryOver(ServerKeys previous) {
    List<String> retired = new ArrayList<>();
    previous.acting.forEach(
        (as, keys) -> {
          List<String> now =
              servers.containsKey(as.server())
                  ? List.of(
                      String.valueOf(choose(as.server(), false, as.identity(), as.token()).keyId()),
                      String.valueOf(choose(as.server(), true, as.identity(), as.token()).keyId()))
                  : List.of();
          keys.ids().stream().filter(id -> !now.contains(id)).forEach(retired::add);
        });
    return retired;
  }
}
