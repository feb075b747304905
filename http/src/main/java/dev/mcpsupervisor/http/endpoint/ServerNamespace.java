package dev.mcpsupervisor.http.endpoint;

import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.config.ToolFilter;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Names on the aggregated endpoint: a tool or prompt {@code name} of server S is published as
 * {@code <prefix>__name} where the prefix is S's {@code toolPrefix} (its name by default). Prefixes
 * are unique, contain no {@code "__"} and do not end with {@code '_'} (the config loader enforces
 * it), so splitting at the FIRST {@code "__"} always gives back the prefix and the original name,
 * whatever the name contains.
 */
public final class ServerNamespace {

  static final String SEPARATOR = "__";

  /** A published name resolved to its server and that server's own name. */
  record Qualified(String server, String name) {}

  private final List<String> servers;
  private final List<ServerConfig> configs;
  private final Map<String, String> serverByPrefix = new HashMap<>();
  private final Map<String, String> prefixByServer = new HashMap<>();

  ServerNamespace(SupervisorConfig config) {
    this(config.servers().values());
  }

  private ServerNamespace(Collection<ServerConfig> configs) {
    this.servers = configs.stream().map(ServerConfig::name).toList();
    for (ServerConfig server : configs) {
      serverByPrefix.put(server.toolPrefix(), server.name());
      prefixByServer.put(server.name(), server.toolPrefix());
    }
    this.configs = List.copyOf(configs);
  }

  /**
   * These servers only: the others' names no longer resolve (a call naming one gets {@link
   * #unknownPrefix}).
   */
  ServerNamespace restrictedTo(Set<String> allowed) {
    return new ServerNamespace(
        configs.stream().filter(server -> allowed.contains(server.name())).toList());
  }

  /** Every configured server, in file order. */
  List<String> servers() {
    return servers;
  }

  String qualify(String server, String name) {
    return prefixByServer.get(server) + SEPARATOR + name;
  }

  /** The server and original name behind a published name. */
  Optional<Qualified> resolve(String published) {
    int separator = published.indexOf(SEPARATOR);
    if (separator <= 0) {
      return Optional.empty();
    }
    String server = serverByPrefix.get(published.substring(0, separator));
    return server == null
        ? Optional.empty()
        : Optional.of(new Qualified(server, published.substring(separator + SEPARATOR.length())));
  }

  /**
   * A server's answer as the aggregated endpoint gives it: "Unknown tool: name" (the gateway's for
   * a hidden tool, or the server's own) names the tool as the client called it, with its prefix.
   */
  static JsonRpcResponse published(JsonRpcResponse answer, Qualified target, String published) {
    JsonRpcError unknown = ToolFilter.unknownTool(target.name());
    return answer.isError()
            && answer.error().code() == unknown.code()
            && answer.error().message().equals(unknown.message())
        ? JsonRpcResponse.failure(answer.id(), ToolFilter.unknownTool(published))
        : answer;
  }

  /**
   * The error for a published name that {@link #resolve} cannot place: it names the prefix it did
   * not know.
   */
  static JsonRpcError unknownPrefix(String kind, String published) {
    int separator = published.indexOf(SEPARATOR);
    String problem =
        separator <= 0
            ? kind
                + " \""
                + published
                + "\" has no server prefix (expected <server>"
                + SEPARATOR
                + "<name>)"
            : "unknown server \""
                + published.substring(0, separator)
                + "\" in "
                + kind
                + " \""
                + published
                + "\"";
    return new JsonRpcError(JsonRpcErrorCodes.UNKNOWN_SERVER, problem);
  }
}
