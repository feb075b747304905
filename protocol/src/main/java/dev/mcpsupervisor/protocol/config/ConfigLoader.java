package dev.mcpsupervisor.protocol.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import dev.mcpsupervisor.protocol.Digests;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a JSON or HOCON configuration with Typesafe Config (so {@code ${?VAR}} substitution works),
 * over the defaults in {@code reference.conf}, and validates it completely.
 *
 * <p>The file is the one MCP clients use: {@code mcpServers.<name>} (or VS Code's {@code
 * servers.<name>}), plus an optional {@code gateway} section and an optional {@code roots} list
 * (every server's, unless it has its own). Every file is parsed as HOCON, a superset of JSON, so
 * substitutions work in {@code .json} files too. A file with neither {@code mcpServers} nor {@code
 * servers} is rejected (most likely the wrong file); an explicitly empty {@code "mcpServers": {}}
 * is valid and configures no server. Servers keep file order (by line; servers that share a line
 * are ordered by name, because HOCON keeps no member order).
 */
public final class ConfigLoader {

  static final String MCP_SERVERS = "mcpServers";

  /** VS Code's name for the servers section. */
  static final String SERVERS = "servers";

  static final String GATEWAY = "gateway";

  /**
   * Top-level fields of client configs that mean nothing here: VS Code's secret prompts and JSON
   * schema links.
   */
  static final Set<String> IGNORED_TOP_LEVEL_FIELDS = Set.of("inputs", "$schema");

  static final FieldRules TOP_LEVEL_RULES =
      new FieldRules(
          List.of(MCP_SERVERS, SERVERS, GATEWAY, RootsReader.ROOTS),
          IGNORED_TOP_LEVEL_FIELDS,
          Map.of());

  /** The root of this module's block in reference.conf. */
  public static final String DEFAULTS_ROOT = "mcp-supervisor";

  /** Defaults of every server's fields, under {@link #DEFAULTS_ROOT}. */
  public static final String SERVER_DEFAULTS = "server-defaults";

  /** Defaults of the gateway section's fields, under {@link #DEFAULTS_ROOT}. */
  public static final String GATEWAY_DEFAULTS = "gateway";

  /** Defaults of the gateway's optional {@code oauth} fields, under {@link #DEFAULTS_ROOT}. */
  public static final String OAUTH_DEFAULTS = "oauth-defaults";

  /** Defaults of the gateway's optional {@code cluster} fields, under {@link #DEFAULTS_ROOT}. */
  public static final String CLUSTER_DEFAULTS = "cluster-defaults";

  private static final char BYTE_ORDER_MARK = '\uFEFF';
  private static final Pattern SUBSTITUTION = Pattern.compile("\\$\\{\\??([^}]*)}");

  private ConfigLoader() {}

  /**
   * @throws ConfigException naming the file, the server and the field
   */
  public static SupervisorConfig load(Path file) {
    String origin = file.toString();
    return parse(readText(file, origin), origin);
  }

  /**
   * A file's configuration and its fingerprint: a short digest of the file as resolved (keys
   * sorted, comments and layout left out, {@code ${VAR}} values in), the same on every node that
   * reads the same settings; a rotated secret changes it (one of {@code gateway.identitySecrets}
   * too), and it shows no value.
   */
  public record Loaded(SupervisorConfig config, String fingerprint) {}

  /**
   * {@link #load(Path)} and the file's {@link Loaded#fingerprint}.
   *
   * @throws ConfigException naming the file, the server and the field
   */
  public static Loaded loadWithFingerprint(Path file) {
    String origin = file.toString();
    String text = readText(file, origin);
    SupervisorConfig config = parse(text, origin);
    String rendered = parseAndResolve(text, origin).root().render(ConfigRenderOptions.concise());
    IdentitySecrets secrets = config.gateway().identitySecrets();
    // only with a secrets file: the fingerprints of configurations without one stay what they were
    return new Loaded(
        config,
        Digests.shortDigest(
            secrets.file() == null ? rendered : rendered + "\n" + secrets.digest(), 16));
  }

  /** Parses config text; {@code origin} names it in errors (a file name, or "built-in default"). */
  public static SupervisorConfig parse(String text, String origin) {
    ConfigSection top = new ConfigSection(parseAndResolve(text, origin), origin, "");
    Config defaults = reference();
    TOP_LEVEL_RULES.check(top);
    Map<String, ServerConfig> servers =
        servers(top, defaults.getConfig(SERVER_DEFAULTS), RootsReader.read(top, List.of()));
    ConfigSection gateway = top.section(GATEWAY);
    GatewayConfig gatewayConfig =
        gateway(
            gateway == null ? new ConfigSection(ConfigFactory.empty(), origin, GATEWAY) : gateway,
            defaults,
            servers.keySet());
    requireAuthenticationToActAsCallers(servers, gatewayConfig, top);
    return new SupervisorConfig(servers, gatewayConfig);
  }

  /**
   * The {@code gateway} section, its defaults from {@code defaults} (reference.conf's block).
   *
   * @param serverNames the configured servers, which {@code identities} may name
   */
  private static GatewayConfig gateway(
      ConfigSection gateway, Config defaults, Set<String> serverNames) {
    return GatewayConfigReader.read(
        gateway,
        defaults.getConfig(GATEWAY_DEFAULTS),
        defaults.getConfig(OAUTH_DEFAULTS),
        defaults.getConfig(CLUSTER_DEFAULTS),
        serverNames);
  }

  /** The {@code gateway} section of a file that has none. */
  static GatewayConfig gatewayDefaults() {
    return gateway(
        new ConfigSection(ConfigFactory.empty(), "reference.conf", GATEWAY), reference(), Set.of());
  }

  /**
   * A server that acts as its caller needs to know who calls: without authentication every caller
   * is the same anonymous one.
   */
  private static void requireAuthenticationToActAsCallers(
      Map<String, ServerConfig> servers, GatewayConfig gateway, ConfigSection top) {
    for (ServerConfig server : servers.values()) {
      if (gateway.oauth() == null && CallerHeaders.exchangesCallerToken(server)) {
        throw new ConfigException(
            top.origin(),
            ConfigSection.childPath(serverPathOf(server, top), ServerConfigReader.TOKEN_EXCHANGE),
            "needs OAuth callers (it exchanges the access token a caller presents):"
                + " set gateway.oauth");
      }
    }
    if (gateway.requiresAuthentication()) {
      return;
    }
    for (ServerConfig server : servers.values()) {
      String serverPath = serverPathOf(server, top);
      if (CallerHeaders.passesCallerToken(server)) {
        throw new ConfigException(
            top.origin(),
            ConfigSection.childPath(serverPath, ServerConfigReader.PASS_CALLER_TOKEN),
            "needs authenticated callers (there is no caller's token to pass):"
                + " set gateway.authTokens or gateway.oauth");
      }
      if (CallerHeaders.actsAsCaller(server)) {
        throw new ConfigException(
            top.origin(),
            ConfigSection.childPath(serverPath, ServerConfigReader.HEADERS),
            "${identity:"
                + CallerHeaders.namesIn(server).iterator().next()
                + "} needs authenticated callers: set gateway.authTokens or gateway.oauth");
      }
    }
  }

  private static String serverPathOf(ServerConfig server, ConfigSection top) {
    return ConfigSection.childPath(top.has(MCP_SERVERS) ? MCP_SERVERS : SERVERS, server.name());
  }

  /**
   * The defaults: this module's block of reference.conf, under {@link #DEFAULTS_ROOT}, with JVM
   * system properties over it. The one home of every default of the config file; Java code that
   * needs one (a config built in code) reads it here.
   */
  static Config reference() {
    return ConfigFactory.defaultReference(ConfigLoader.class.getClassLoader())
        .getConfig(DEFAULTS_ROOT);
  }

  /**
   * A block of {@link #reference()} (e.g. {@link #GATEWAY_DEFAULTS}), read like a file's section.
   */
  static ConfigSection referenceSection(String defaults) {
    return new ConfigSection(
        reference().getConfig(defaults), "reference.conf", DEFAULTS_ROOT + "." + defaults);
  }

  private static String readText(Path file, String origin) {
    if (Files.isDirectory(file)) {
      throw new ConfigException(origin, "is a directory, not a config file");
    }
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new ConfigException(origin, "file not found");
    } catch (AccessDeniedException e) {
      throw new ConfigException(origin, "cannot read the file: permission denied");
    } catch (MalformedInputException e) {
      throw new ConfigException(origin, "not UTF-8 text");
    } catch (IOException e) {
      throw new ConfigException(origin, "cannot read the file: " + e.getMessage());
    }
    // editors on Windows save UTF-8 with a byte order mark, which the HOCON parser would take for
    // content
    return !text.isEmpty() && text.charAt(0) == BYTE_ORDER_MARK ? text.substring(1) : text;
  }

  private static Config parseAndResolve(String text, String origin) {
    ConfigParseOptions options =
        ConfigParseOptions.defaults()
            .setSyntax(ConfigSyntax.CONF)
            .setOriginDescription(origin)
            .setAllowMissing(false);
    try {
      // resolve() falls back to environment variables for ${VAR} and ${?VAR}
      return ConfigFactory.parseString(text, options).resolve();
    } catch (com.typesafe.config.ConfigException.UnresolvedSubstitution e) {
      throw new ConfigException(origin, lineOf(e) + unresolved(problemOf(e)));
    } catch (com.typesafe.config.ConfigException.Parse e) {
      throw new ConfigException(origin, lineOf(e) + "syntax error: " + problemOf(e));
    } catch (com.typesafe.config.ConfigException e) {
      throw new ConfigException(origin, lineOf(e) + problemOf(e));
    }
  }

  private static String lineOf(com.typesafe.config.ConfigException e) {
    return e.origin() != null && e.origin().lineNumber() > 0
        ? "line " + e.origin().lineNumber() + ": "
        : "";
  }

  /** Typesafe's message without its own "origin: line: " prefix, which ours replaces. */
  private static String problemOf(com.typesafe.config.ConfigException e) {
    String message = e.getMessage();
    String prefix = e.origin() == null ? null : e.origin().description() + ": ";
    return prefix != null && message.startsWith(prefix)
        ? message.substring(prefix.length())
        : message;
  }

  private static String unresolved(String problem) {
    Matcher substitution = SUBSTITUTION.matcher(problem);
    if (!substitution.find()) {
      return problem;
    }
    String name = substitution.group(1);
    return "${"
        + name
        + "} is not set (no such setting or environment variable; write ${?"
        + name
        + "} where it may be absent)";
  }

  private static Map<String, ServerConfig> servers(
      ConfigSection top, Config serverDefaults, List<Root> roots) {
    boolean hasMcpServers = top.has(MCP_SERVERS);
    boolean hasServers = top.has(SERVERS);
    if (hasMcpServers && hasServers) {
      throw top.error(SERVERS, "use either mcpServers or servers, not both");
    }
    if (!hasMcpServers && !hasServers) {
      throw top.error(
          MCP_SERVERS,
          "missing (no server is configured; write \"mcpServers\": {} to run with none)");
    }
    ConfigSection section = top.section(hasMcpServers ? MCP_SERVERS : SERVERS);
    Map<String, ServerConfig> servers = new LinkedHashMap<>();
    Map<String, String> serverByToolPrefix = new HashMap<>();
    for (Map.Entry<String, ConfigValue> member : section.membersInFileOrder()) {
      String name = member.getKey();
      if (member.getValue().valueType() != ConfigValueType.OBJECT) {
        throw section.error(
            name, "must be an object, got " + ConfigSection.typeOf(member.getValue()));
      }
      ConfigSection server = section.section(name);
      Optional<ServerConfig> config = ServerConfigReader.read(name, server, serverDefaults, roots);
      if (config.isEmpty()) {
        continue;
      }
      String prefix = config.get().toolPrefix();
      String previous = serverByToolPrefix.putIfAbsent(prefix, name);
      if (previous != null) {
        throw server.error(
            ServerConfigReader.TOOL_PREFIX,
            "tool prefix \"" + prefix + "\" is already used by server \"" + previous + "\"");
      }
      servers.put(name, config.get());
    }
    return servers;
  }
}
