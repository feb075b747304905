package dev.mcpsupervisor.protocol.config;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * One configured server: its name (the key under {@code mcpServers}), how to reach it, and its
 * pooling policy.
 *
 * @param toolPrefix the prefix of its tools and prompts on the aggregated endpoint (default: the
 *     name)
 * @param toolFilter which of its tools are exposed ({@code tools}, {@code disabledTools}; default:
 *     {@link ToolFilter#ALL})
 * @param upstreamLimits what the server may send, and how long HTTP waits for it (default: {@link
 *     UpstreamLimits#defaults})
 * @param interactiveTools tools declared to send server requests (sampling, elicitation) during
 *     their calls ({@code interactiveTools}; reference.conf's default is none: each is learnt from
 *     its first call that sends one); a call of one gets an upstream session where it is the only
 *     interactive call of its caller in flight
 * @param roots what the supervisor answers the server's {@code roots/list} with, unless a caller
 *     that announced roots of its own owns the request ({@code roots}, else the top level's;
 *     default none)
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
    ToolFilter toolFilter,
    UpstreamLimits upstreamLimits,
    Set<String> interactiveTools,
    List<Root> roots) {

  public ServerConfig {
    toolFilter = toolFilter == null ? ToolFilter.ALL : toolFilter;
    upstreamLimits =
        upstreamLimits == null ? UpstreamLimits.defaults(requestTimeout) : upstreamLimits;
    interactiveTools = interactiveTools == null ? Set.of() : Set.copyOf(interactiveTools);
    roots = roots == null ? List.of() : List.copyOf(roots);
  }

  /** No roots: the server's {@code roots/list} is answered with none. */
  public ServerConfig(
      String name,
      ServerSpec spec,
      Isolation isolation,
      int maxSessions,
      int maxInflightPerSession,
      Duration requestTimeout,
      Duration idleTimeout,
      String toolPrefix,
      ToolFilter toolFilter,
      UpstreamLimits upstreamLimits,
      Set<String> interactiveTools) {
    this(
        name,
        spec,
        isolation,
        maxSessions,
        maxInflightPerSession,
        requestTimeout,
        idleTimeout,
        toolPrefix,
        toolFilter,
        upstreamLimits,
        interactiveTools,
        null);
  }

  /** No tool declared interactive (each is learnt from its calls). */
  public ServerConfig(
      String name,
      ServerSpec spec,
      Isolation isolation,
      int maxSessions,
      int maxInflightPerSession,
      Duration requestTimeout,
      Duration idleTimeout,
      String toolPrefix,
      ToolFilter toolFilter,
      UpstreamLimits upstreamLimits) {
    this(
        name,
        spec,
        isolation,
        maxSessions,
        maxInflightPerSession,
        requestTimeout,
        idleTimeout,
        toolPrefix,
        toolFilter,
        upstreamLimits,
        null);
  }

  /** Every tool exposed, the default {@link UpstreamLimits}. */
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
        ToolFilter.ALL,
        null,
        null);
  }

  /**
   * {@code <toolPrefix>__<name>}: the name of one of its tools or prompts where several servers'
   * are offered together (the gateway's {@code /mcp}, the Spring AI and LangChain4j adapters).
   */
  public String qualifiedName(String name) {
    return toolPrefix + ServerConfigReader.TOOL_NAME_SEPARATOR + name;
  }

  public ServerKey key() {
    return ServerKey.of(name, spec);
  }

  /** This server reached through {@code newSpec} (e.g. its headers filled for one caller). */
  public ServerConfig withSpec(ServerSpec newSpec) {
    return new ServerConfig(
        name,
        newSpec,
        isolation,
        maxSessions,
        maxInflightPerSession,
        requestTimeout,
        idleTimeout,
        toolPrefix,
        toolFilter,
        upstreamLimits,
        interactiveTools,
        roots);
  }

  /**
   * What this server is for session-era callers: an {@code auto} Streamable HTTP server is spoken
   * to in the session era first (a server of both eras serves such a caller natively); any other
   * the same.
   */
  public ServerConfig forSessionEraCallers() {
    if (!(spec instanceof ServerSpec.StreamableHttp http)
        || http.protocol() != UpstreamProtocol.AUTO) {
      return this;
    }
    return withSpec(http.withProtocol(UpstreamProtocol.AUTO_SESSION_ERA_FIRST));
  }
}
