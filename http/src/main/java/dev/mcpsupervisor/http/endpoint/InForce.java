package dev.mcpsupervisor.http.endpoint;

import dev.mcpsupervisor.http.access.AccessControl;
import dev.mcpsupervisor.http.access.Authentication;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The configuration the gateway serves by, with what is derived from it (endpoints, namespace,
 * access rules): one snapshot, swapped whole when a reload is applied. A request reads it once on
 * arrival, so one in flight finishes under what it started with, and the next one sees the new. The
 * aggregated endpoint reads the namespace in force on every request: its sessions follow added and
 * removed servers without being remade.
 */
public final class InForce {

  /**
   * One configuration and what is derived from it.
   *
   * @param endpoints by path: {@code /mcp} and one per server
   * @param contextIsolationPaths the endpoints that reach an {@code isolation: context} server:
   *     only their requests use identity contexts
   */
  public record Served(
      SupervisorConfig config,
      GatewayConfig gateway,
      ServerNamespace namespace,
      Map<String, McpEndpoint> endpoints,
      ServerAccess access,
      Set<String> contextIsolationPaths,
      AccessControl accessControl,
      Authentication authentication) {

    /**
     * What 2026-07-28 cacheable results say: {@code private} when answers depend on who asks
     * (callers authenticate), else {@code public}.
     */
    public String cacheScope() {
      return gateway.requiresAuthentication() ? "private" : "public";
    }

    /**
     * {@link #cacheScope()} of a request whose calls to {@code isolation: context} servers go out
     * in its caller's {@code identity} context (null: none): {@code private} then, since its lists
     * are that caller's own.
     */
    public String cacheScope(String identity) {
      return identity != null ? "private" : cacheScope();
    }

    /** Whether {@code server} is served now. */
    public boolean serves(String server) {
      return config.servers().containsKey(server);
    }
  }

  private final GatewaySettings settings;
  private final GatewayMetrics metrics;
  private final Executor blocking;
  private final ToolSchemas toolSchemas;
  private final AggregatedEndpoint aggregated;
  private final AtomicReference<Served> served = new AtomicReference<>();

  /**
   * @param gateway the gateway section in force at start (the supervisor's configuration may have
   *     none: an embedding's)
   * @param blocking where access tokens are verified (a key fetch blocks)
   */
  public InForce(
      SupervisorConfig config,
      GatewayConfig gateway,
      GatewaySettings settings,
      String version,
      GatewayMetrics metrics,
      Executor blocking) {
    this.settings = settings;
    this.metrics = metrics;
    this.blocking = blocking;
    this.toolSchemas = new ToolSchemas(new AggregatedLists(settings));
    metrics.onListChanged(toolSchemas::listChanged);
    this.aggregated =
        new AggregatedEndpoint(() -> get().namespace(), settings, version, toolSchemas);
    served.set(derive(config, gateway, null));
  }

  public Served get() {
    return served.get();
  }

  /**
   * From now on, requests are served by {@code config} (its gateway section, unless it has none).
   * Called once the supervisor took it, so a server listed here is one it can call.
   */
  public void apply(SupervisorConfig config) {
    Served was = served.get();
    served.set(derive(config, config.gateway() != null ? config.gateway() : was.gateway(), was));
  }

  /**
   * The endpoint a session or request of {@code identity} uses: on {@code /mcp}, the aggregate of
   * the servers in force that the identity may use by the rules in force, read on each request;
   * else {@code endpoint} itself (a single server's endpoint is refused before).
   */
  public McpEndpoint endpointFor(McpEndpoint endpoint, Identity identity) {
    if (endpoint != aggregated) {
      return endpoint;
    }
    return aggregated.over(
        () -> {
          Served now = get();
          return now.access().narrow(now.namespace(), identity);
        });
  }

  private Served derive(SupervisorConfig config, GatewayConfig gateway, Served was) {
    Map<String, McpEndpoint> endpoints = new LinkedHashMap<>();
    endpoints.put(AggregatedEndpoint.PATH, aggregated);
    config
        .servers()
        .keySet()
        .forEach(
            server -> {
              String path = SingleServerEndpoint.pathOf(server);
              McpEndpoint kept = was == null ? null : was.endpoints().get(path);
              endpoints.put(
                  path, kept != null ? kept : new SingleServerEndpoint(server, toolSchemas));
            });
    Set<String> contextIsolationPaths = new HashSet<>();
    config
        .servers()
        .values()
        .forEach(
            server -> {
              if (server.isolation() == Isolation.CONTEXT) {
                contextIsolationPaths.add(AggregatedEndpoint.PATH);
                contextIsolationPaths.add(SingleServerEndpoint.pathOf(server.name()));
              }
            });
    // a new verifier forgets the issuer's keys it fetched: only when tokens or OAuth change
    boolean sameAuthentication =
        was != null
            && Objects.equals(was.gateway().namedTokens(), gateway.namedTokens())
            && Objects.equals(was.gateway().oauth(), gateway.oauth());
    return new Served(
        config,
        gateway,
        new ServerNamespace(config),
        Collections.unmodifiableMap(endpoints),
        new ServerAccess(gateway.identities(), config.servers(), gateway.identitySecrets()),
        Set.copyOf(contextIsolationPaths),
        new AccessControl(gateway, metrics),
        sameAuthentication ? was.authentication() : new Authentication(gateway, metrics, blocking));
  }
}
