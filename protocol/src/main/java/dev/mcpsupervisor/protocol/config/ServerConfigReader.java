package dev.mcpsupervisor.protocol.config;

import com.typesafe.config.Config;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/** Reads and validates one entry of {@code mcpServers} (or VS Code's {@code servers}). */
final class ServerConfigReader {

  static final String COMMAND = "command";
  static final String ARGS = "args";
  static final String ENV = "env";
  static final String CWD = "cwd";
  static final String INHERIT_ENV = "inheritEnv";
  static final String URL = "url";
  static final String HEADERS = "headers";
  static final String PASS_CALLER_TOKEN = "passCallerToken";
  static final String TOKEN_EXCHANGE = "tokenExchange";
  static final String TOKEN_ENDPOINT = "tokenEndpoint";
  static final String AUDIENCE = "audience";
  static final String SCOPE = "scope";
  static final String CLIENT_ID = "clientId";
  static final String CLIENT_SECRET = "clientSecret";
  static final String TRANSPORT = "transport";
  static final String PROTOCOL = "protocol";

  /** VS Code's and Claude Code's name for the transport: stdio, http or sse. */
  static final String TYPE = "type";

  static final String ISOLATION = "isolation";
  static final String MAX_SESSIONS = "maxSessions";
  static final String MAX_INFLIGHT_PER_SESSION = "maxInflightPerSession";
  static final String REQUEST_TIMEOUT = "requestTimeout";
  static final String IDLE_TIMEOUT = "idleTimeout";
  static final String TOOL_PREFIX = "toolPrefix";
  static final String DISABLED = "disabled";
  static final String MAX_MESSAGE_BYTES = "maxMessageBytes";
  static final String HTTP_TIMEOUT = "httpTimeout";
  static final String SSE_RETRY_MIN = "sseRetryMin";
  static final String SSE_RETRY_MAX = "sseRetryMax";
  static final String INTERACTIVE_TOOLS = "interactiveTools";

  /** Fields other MCP clients write that concern only their own UI: accepted and ignored. */
  static final Set<String> IGNORED_CLIENT_FIELDS =
      Set.of("autoApprove", "alwaysAllow", "description", "trust", "dev");

  /**
   * Fields other MCP clients honour that would change what the gateway does: rejected rather than
   * ignored.
   */
  static final Map<String, String> UNSUPPORTED_CLIENT_FIELDS =
      Map.of(
          "timeout",
          "use requestTimeout, a duration such as \"60s\" (clients disagree on the unit of timeout)",
          "envFile",
          "put the variables in env (values may use ${?VAR} substitution)",
          "oauth",
          "send a token in headers instead, e.g. Authorization = \"Bearer \"${?TOKEN}");

  static final FieldRules RULES =
      new FieldRules(
          List.of(
              COMMAND,
              ARGS,
              ENV,
              CWD,
              INHERIT_ENV,
              URL,
              HEADERS,
              PASS_CALLER_TOKEN,
              TOKEN_EXCHANGE,
              TRANSPORT,
              TYPE,
              PROTOCOL,
              ISOLATION,
              MAX_SESSIONS,
              MAX_INFLIGHT_PER_SESSION,
              REQUEST_TIMEOUT,
              IDLE_TIMEOUT,
              TOOL_PREFIX,
              ToolFilterReader.TOOLS,
              ToolFilterReader.INCLUDE_TOOLS,
              ToolFilterReader.DISABLED_TOOLS,
              ToolFilterReader.EXCLUDE_TOOLS,
              DISABLED,
              MAX_MESSAGE_BYTES,
              HTTP_TIMEOUT,
              SSE_RETRY_MIN,
              SSE_RETRY_MAX,
              INTERACTIVE_TOOLS,
              RootsReader.ROOTS),
          IGNORED_CLIENT_FIELDS,
          UNSUPPORTED_CLIENT_FIELDS);

  private static final FieldRules TOKEN_EXCHANGE_RULES =
      new FieldRules(
          List.of(TOKEN_ENDPOINT, AUDIENCE, SCOPE, CLIENT_ID, CLIENT_SECRET), Set.of(), Map.of());

  /** Server names appear in URLs (/servers/<name>/mcp), actor names and tool names. */
  private static final Pattern SERVER_NAME = Pattern.compile("[A-Za-z0-9_.-]+");

  private static final Pattern TOOL_PREFIX_CHARACTERS = Pattern.compile("[A-Za-z0-9_-]+");

  /**
   * "__" joins prefix and tool name, so a prefix with "__" or a trailing '_' would make the split
   * ambiguous.
   */
  static final String TOOL_NAME_SEPARATOR = "__";

  private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

  private enum Transport {
    STDIO,
    STREAMABLE_HTTP,
    SSE
  }

  /**
   * Both transport and type take any of these; "http" and "streamableHttp" are what VS Code and
   * Cline write.
   */
  private static final Map<String, Transport> TRANSPORT_NAMES =
      Map.of(
          "stdio", Transport.STDIO,
          "streamable-http", Transport.STREAMABLE_HTTP,
          "http", Transport.STREAMABLE_HTTP,
          "streamableHttp", Transport.STREAMABLE_HTTP,
          "sse", Transport.SSE);

  private ServerConfigReader() {}

  /**
   * The server, or empty when it is disabled (a disabled server is checked for unknown fields
   * only).
   *
   * @param roots the top level's roots, for a server without its own
   */
  static Optional<ServerConfig> read(
      String name, ConfigSection server, Config serverDefaults, List<Root> roots) {
    RULES.check(server);
    if (server.bool(DISABLED, false)) {
      return Optional.empty();
    }
    if (!SERVER_NAME.matcher(name).matches()) {
      throw server.error(
          "server name must be letters, digits, '.', '-' and '_' only (it is used in URLs and tool names)");
    }
    ConfigSection section = server.withDefaults(serverDefaults);
    return Optional.of(
        fromSection(
            name,
            spec(section),
            section,
            ToolFilterReader.read(server),
            RootsReader.read(server, roots)));
  }

  /** A server that sets only how it is reached: the rest as reference.conf has it. */
  static ServerConfig defaults(String name, ServerSpec spec) {
    return fromSection(
        name,
        spec,
        ConfigLoader.referenceSection(ConfigLoader.SERVER_DEFAULTS),
        ToolFilter.ALL,
        List.of());
  }

  private static ServerConfig fromSection(
      String name,
      ServerSpec spec,
      ConfigSection section,
      ToolFilter toolFilter,
      List<Root> roots) {
    Duration requestTimeout = section.positiveDuration(REQUEST_TIMEOUT);
    return new ServerConfig(
        name,
        spec,
        isolation(section),
        section.integer(MAX_SESSIONS, 1, Integer.MAX_VALUE),
        section.integer(MAX_INFLIGHT_PER_SESSION, 1, Integer.MAX_VALUE),
        requestTimeout,
        section.positiveDuration(IDLE_TIMEOUT),
        toolPrefix(name, section),
        toolFilter,
        upstreamLimits(section, requestTimeout),
        interactiveTools(section),
        roots);
  }

  /** Tool names the server's calls of which may send server requests; an empty name is an error. */
  private static Set<String> interactiveTools(ConfigSection server) {
    Set<String> tools = new java.util.LinkedHashSet<>();
    for (String tool : server.stringList(INTERACTIVE_TOOLS)) {
      if (tool.isBlank()) {
        throw server.error(INTERACTIVE_TOOLS, "tool names must not be empty");
      }
      tools.add(tool);
    }
    return tools;
  }

  static UpstreamLimits upstreamLimits(ConfigSection server, Duration requestTimeout) {
    long maxMessageBytes = server.positiveBytes(MAX_MESSAGE_BYTES);
    if (maxMessageBytes > JsonRpcCodec.MAX_DOCUMENT_LENGTH) {
      // a larger message could be read, but never parsed
      throw server.error(
          MAX_MESSAGE_BYTES,
          "must be at most 16 MiB (the JSON-RPC parser's limit), got "
              + maxMessageBytes
              + " bytes");
    }
    Duration httpTimeout =
        server.has(HTTP_TIMEOUT) ? server.positiveDuration(HTTP_TIMEOUT) : requestTimeout;
    Duration sseRetryMin = server.positiveDuration(SSE_RETRY_MIN);
    Duration sseRetryMax = server.positiveDuration(SSE_RETRY_MAX);
    if (sseRetryMax.compareTo(sseRetryMin) < 0) {
      throw server.error(
          SSE_RETRY_MAX,
          "must not be shorter than "
              + SSE_RETRY_MIN
              + " ("
              + sseRetryMax
              + " < "
              + sseRetryMin
              + ")");
    }
    return new UpstreamLimits((int) maxMessageBytes, httpTimeout, sseRetryMin, sseRetryMax);
  }

  private static ServerSpec spec(ConfigSection server) {
    if (server.has(TRANSPORT) && server.has(TYPE)) {
      throw server.error(TYPE, "use either transport or type, not both");
    }
    boolean hasCommand = server.has(COMMAND);
    boolean hasUrl = server.has(URL);
    if (hasCommand && hasUrl) {
      throw server.error(
          "has both command and url; a server is either a command (stdio) or a url (streamable-http or sse)");
    }
    if (!hasCommand && !hasUrl) {
      throw server.error("needs either command (stdio) or url (streamable-http or sse)");
    }
    String transportField = server.has(TYPE) ? TYPE : TRANSPORT;
    Transport transport =
        server.has(transportField)
            ? transport(server, transportField)
            : hasCommand ? Transport.STDIO : Transport.STREAMABLE_HTTP;
    if (transport == Transport.STDIO) {
      if (hasUrl) {
        throw server.error(
            transportField, "\"" + server.string(transportField) + "\" needs command, not url");
      }
      rejectPresent(server, "only for url servers", HEADERS);
      rejectPresent(server, "only for url servers", PASS_CALLER_TOKEN, TOKEN_EXCHANGE);
      return new ServerSpec.Stdio(
          server.nonEmptyString(COMMAND),
          server.stringList(ARGS),
          server.stringMap(ENV),
          server.optionalNonEmptyString(CWD),
          protocol(server),
          server.bool(INHERIT_ENV, false));
    }
    if (hasCommand) {
      throw server.error(
          transportField, "\"" + server.string(transportField) + "\" needs url, not command");
    }
    rejectPresent(server, "only for command (stdio) servers", ARGS, ENV, CWD, INHERIT_ENV);
    URI url = url(server);
    Map<String, String> headers = headers(server);
    UpstreamProtocol protocol = protocol(server);
    if (transport == Transport.SSE) {
      if (protocol == UpstreamProtocol.STATELESS) {
        throw server.error(
            PROTOCOL,
            "the sse transport (HTTP+SSE, 2024-11-05) cannot carry "
                + protocol.configName()
                + "; use streamable-http");
      }
      rejectPresent(server, "only for streamable-http servers", TOKEN_EXCHANGE);
      return new ServerSpec.Sse(url, headers);
    }
    return new ServerSpec.StreamableHttp(url, headers, protocol, tokenExchange(server));
  }

  private static UpstreamProtocol protocol(ConfigSection server) {
    if (!server.has(PROTOCOL)) {
      return UpstreamProtocol.AUTO;
    }
    String name = server.stringOrNumber(PROTOCOL);
    UpstreamProtocol protocol = UpstreamProtocol.ofConfigName(name);
    if (protocol == null) {
      throw server.error(
          PROTOCOL,
          "unknown protocol \"" + name + "\" (expected " + UpstreamProtocol.allConfigNames() + ")");
    }
    return protocol;
  }

  private static Transport transport(ConfigSection server, String field) {
    String name = server.string(field);
    Transport transport = TRANSPORT_NAMES.get(name);
    if (transport == null) {
      String expected = field.equals(TYPE) ? "stdio, http or sse" : "stdio, streamable-http or sse";
      throw server.error(
          field, "unknown " + field + " \"" + name + "\" (expected " + expected + ")");
    }
    return transport;
  }

  private static void rejectPresent(ConfigSection server, String problem, String... fields) {
    for (String field : fields) {
      if (server.has(field)) {
        throw server.error(field, problem);
      }
    }
  }

  private static URI url(ConfigSection server) {
    // the text is never echoed: a query string may hold an API key
    String text = server.nonEmptyString(URL).strip();
    URI url;
    try {
      url = new URI(text);
    } catch (URISyntaxException e) {
      throw server.error(
          URL, "not a valid URL (" + e.getReason() + " at index " + e.getIndex() + ")");
    }
    String scheme = url.getScheme();
    if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
      throw server.error(URL, "must start with http:// or https://");
    }
    if (url.getHost() == null) {
      throw server.error(URL, "has no host");
    }
    if (url.getRawUserInfo() != null) {
      throw server.error(URL, "must not hold credentials (user:password@); send them in headers");
    }
    return url;
  }

  private static Map<String, String> headers(ConfigSection server) {
    Map<String, String> headers = server.stringMap(HEADERS, CallerHeaders.PLACEHOLDER);
    headers.forEach(
        (name, value) -> {
          String path = ConfigSection.childPath(server.path(HEADERS), name);
          if (!HEADER_NAME.matcher(name).matches()) {
            throw new ConfigException(server.origin(), path, "not a valid HTTP header name");
          }
          if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
            throw new ConfigException(server.origin(), path, "must not contain line breaks");
          }
        });
    boolean passes = server.bool(PASS_CALLER_TOKEN, false);
    if (passes && server.has(TOKEN_EXCHANGE)) {
      throw server.error(
          TOKEN_EXCHANGE, "sends an exchanged token, not the caller's own: remove passCallerToken");
    }
    // a token exchange sends the exchanged token, got for the caller's own, which the header holds
    // in the server's spec: the connector exchanges it and never sends it
    String callerTokenField = passes ? PASS_CALLER_TOKEN : TOKEN_EXCHANGE;
    if (!passes && !server.has(TOKEN_EXCHANGE)) {
      return headers;
    }
    if (headers.keySet().stream().anyMatch(CallerHeaders.AUTHORIZATION::equalsIgnoreCase)) {
      throw server.error(callerTokenField, "sets the Authorization header: remove it from headers");
    }
    Map<String, String> passing = new LinkedHashMap<>(headers);
    passing.put(CallerHeaders.AUTHORIZATION, CallerHeaders.BEARER_CALLER_TOKEN);
    return passing;
  }

  private static TokenExchange tokenExchange(ConfigSection server) {
    ConfigSection exchange = server.section(TOKEN_EXCHANGE);
    if (exchange == null) {
      return null;
    }
    TOKEN_EXCHANGE_RULES.check(exchange);
    for (String required : List.of(TOKEN_ENDPOINT, CLIENT_ID, CLIENT_SECRET)) {
      if (!exchange.has(required)) {
        throw exchange.error(required, "missing");
      }
    }
    return new TokenExchange(
        // the client's secret and each caller's token go there: https unless on loopback
        AuthConfigReader.httpUri(exchange, TOKEN_ENDPOINT, true),
        exchange.optionalNonEmptyString(AUDIENCE),
        exchange.optionalNonEmptyString(SCOPE),
        exchange.nonEmptyString(CLIENT_ID),
        exchange.nonEmptyString(CLIENT_SECRET));
  }

  private static Isolation isolation(ConfigSection server) {
    String name = server.string(ISOLATION);
    for (Isolation isolation : Isolation.values()) {
      if (isolation.configName().equals(name)) {
        return isolation;
      }
    }
    throw server.error(
        ISOLATION, "unknown isolation \"" + name + "\" (expected shared or context)");
  }

  private static String toolPrefix(String name, ConfigSection server) {
    boolean explicit = server.has(TOOL_PREFIX);
    String prefix = explicit ? server.string(TOOL_PREFIX) : name;
    String problem = null;
    if (!TOOL_PREFIX_CHARACTERS.matcher(prefix).matches()) {
      problem = "letters, digits, '-' and '_' only";
    } else if (prefix.contains(TOOL_NAME_SEPARATOR) || prefix.endsWith("_")) {
      problem =
          "\"__\" separates prefix and tool name, so a prefix cannot contain \"__\" or end with '_'";
    }
    if (problem == null) {
      return prefix;
    }
    throw server.error(
        TOOL_PREFIX,
        explicit
            ? "\"" + prefix + "\" is not a valid tool prefix (" + problem + ")"
            : "the server name is not a valid tool prefix (" + problem + "); set toolPrefix");
  }
}
