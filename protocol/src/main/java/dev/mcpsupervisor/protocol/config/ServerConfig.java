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
    return toBuilder().spec(newSpec).build();
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

  /**
   * A server built in code: reached through {@code spec}, every other field as reference.conf's
   * {@code server-defaults} has it, unless the builder is given it.
   */
  public static Builder builder(String name, ServerSpec spec) {
    return new Builder(ServerConfigReader.defaults(name, spec)).upstreamLimits(null);
  }

  /** A server like this one but for the fields the builder is given. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Builds a {@link ServerConfig} in code (tests, embedders). Unless {@link #upstreamLimits} is
   * set, a builder from {@link ServerConfig#builder} takes the default limits for its request
   * timeout, as a file does.
   */
  public static final class Builder {
    private String name;
    private ServerSpec spec;
    private Isolation isolation;
    private int maxSessions;
    private int maxInflightPerSession;
    private Duration requestTimeout;
    private Duration idleTimeout;
    private String toolPrefix;
    private ToolFilter toolFilter;
    private UpstreamLimits upstreamLimits;
    private Set<String> interactiveTools;
    private List<Root> roots;

    private Builder(ServerConfig from) {
      name = from.name;
      spec = from.spec;
      isolation = from.isolation;
      maxSessions = from.maxSessions;
      maxInflightPerSession = from.maxInflightPerSession;
      requestTimeout = from.requestTimeout;
      idleTimeout = from.idleTimeout;
      toolPrefix = from.toolPrefix;
      toolFilter = from.toolFilter;
      upstreamLimits = from.upstreamLimits;
      interactiveTools = from.interactiveTools;
      roots = from.roots;
    }

    public Builder spec(ServerSpec value) {
      spec = value;
      return this;
    }

    public Builder isolation(Isolation value) {
      isolation = value;
      return this;
    }

    public Builder maxSessions(int value) {
      maxSessions = value;
      return this;
    }

    public Builder maxInflightPerSession(int value) {
      maxInflightPerSession = value;
      return this;
    }

    public Builder requestTimeout(Duration value) {
      requestTimeout = value;
      return this;
    }

    public Builder idleTimeout(Duration value) {
      idleTimeout = value;
      return this;
    }

    public Builder toolPrefix(String value) {
      toolPrefix = value;
      return this;
    }

    public Builder toolFilter(ToolFilter value) {
      toolFilter = value;
      return this;
    }

    /** Null: the defaults for the request timeout. */
    public Builder upstreamLimits(UpstreamLimits value) {
      upstreamLimits = value;
      return this;
    }

    public Builder interactiveTools(Set<String> value) {
      interactiveTools = value;
      return this;
    }

    public Builder roots(List<Root> value) {
      roots = value;
      return this;
    }

    public ServerConfig build() {
      return new ServerConfig(
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
          roots);
    }
  }
}
