package dev.mcpsupervisor.protocol.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real-world client configs load as written; defaults come from reference.conf. */
class ConfigLoaderTest {

  private static final String UNSET_VARIABLE = "MCP_SUPERVISOR_TEST_SURELY_UNSET_VARIABLE";

  @TempDir Path dir;

  @Test
  void claudeDesktopStyleFileLoads() throws IOException {
    Path file =
        write(
            "claude_desktop_config.json",
            """
        {
          "mcpServers": {
            "filesystem": {
              "command": "npx",
              "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/alice/Desktop", "/Users/alice/Downloads"]
            },
            "github": {
              "command": "npx",
              "args": ["-y", "@modelcontextprotocol/server-github"],
              "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_example" }
            },
            "fetch": { "command": "uvx", "args": ["mcp-server-fetch"] },
            "sqlite": {
              "command": "uvx",
              "args": ["mcp-server-sqlite", "--db-path", "/tmp/test.db"],
              "disabled": true,
              "autoApprove": ["read_query"]
            }
          }
        }
        """);
    SupervisorConfig config = ConfigLoader.load(file);

    assertEquals(
        List.of("filesystem", "github", "fetch"),
        List.copyOf(config.servers().keySet()),
        "sqlite is disabled");
    assertEquals(
        new ServerSpec.Stdio(
            "npx",
            List.of(
                "-y",
                "@modelcontextprotocol/server-filesystem",
                "/Users/alice/Desktop",
                "/Users/alice/Downloads"),
            Map.of(),
            null),
        config.servers().get("filesystem").spec());
    ServerSpec.Stdio github =
        assertInstanceOf(ServerSpec.Stdio.class, config.servers().get("github").spec());
    assertEquals(Map.of("GITHUB_PERSONAL_ACCESS_TOKEN", "ghp_example"), github.env());
    ServerConfig fetch = config.servers().get("fetch");
    assertEquals(
        new ServerSpec.Stdio("uvx", List.of("mcp-server-fetch"), Map.of(), null), fetch.spec());
    assertEquals(
        ServerConfig.builder("fetch", fetch.spec())
            .isolation(Isolation.SHARED)
            .maxSessions(4)
            .maxInflightPerSession(32)
            .requestTimeout(Duration.ofSeconds(60))
            .idleTimeout(Duration.ofMinutes(10))
            .build(),
        fetch);
  }

  @Test
  void vsCodeStyleFileLoads() throws IOException {
    Path file =
        write(
            "mcp.json",
            """
        {
          "inputs": [
            { "type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true }
          ],
          "servers": {
            "perplexity": {
              "type": "stdio",
              "command": "npx",
              "args": ["-y", "server-perplexity-ask"],
              "env": { "PERPLEXITY_API_KEY": "pplx-example" },
              "dev": { "watch": "src/**/*.ts" }
            },
            "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/" },
            "legacy": { "type": "sse", "url": "http://localhost:3001/sse", "headers": { "X-Team": "blue" } }
          }
        }
        """);
    SupervisorConfig config = ConfigLoader.load(file);

    assertEquals(List.of("perplexity", "github", "legacy"), List.copyOf(config.servers().keySet()));
    assertEquals(
        new ServerSpec.Stdio(
            "npx",
            List.of("-y", "server-perplexity-ask"),
            Map.of("PERPLEXITY_API_KEY", "pplx-example"),
            null),
        config.servers().get("perplexity").spec());
    assertEquals(
        new ServerSpec.StreamableHttp(URI.create("https://api.githubcopilot.com/mcp/"), Map.of()),
        config.servers().get("github").spec());
    assertEquals(
        new ServerSpec.Sse(URI.create("http://localhost:3001/sse"), Map.of("X-Team", "blue")),
        config.servers().get("legacy").spec());
  }

  @Test
  void cursorStyleRemoteServerLoads() throws IOException {
    Path file =
        write(
            "mcp.json",
            """
        {
          "mcpServers": {
            "remote": {
              "url": "https://mcp.example.com/mcp",
              "headers": { "API_KEY": "value", "Authorization": "Bearer token" }
            },
            "events": { "url": "https://mcp.example.com/sse", "transport": "sse" }
          }
        }
        """);
    SupervisorConfig config = ConfigLoader.load(file);

    assertEquals(
        new ServerSpec.StreamableHttp(
            URI.create("https://mcp.example.com/mcp"),
            Map.of("API_KEY", "value", "Authorization", "Bearer token")),
        config.servers().get("remote").spec());
    assertEquals(
        new ServerSpec.Sse(URI.create("https://mcp.example.com/sse"), Map.of()),
        config.servers().get("events").spec());
  }

  @Test
  void hoconWithEnvironmentSubstitutionLoads() throws IOException {
    String path = System.getenv("PATH");
    assumeTrue(path != null, "PATH is set");
    assumeTrue(System.getenv(UNSET_VARIABLE) == null, UNSET_VARIABLE + " is unset");
    Path file =
        write(
            "supervisor.conf",
            """
        # HOCON: comments, unquoted strings, durations, sizes, substitutions
        mcpServers {
          tools {
            command = java
            args = [-jar, "server.jar"]
            env {
              PATH = ${PATH}
              OPTIONAL = ${?%1$s}
            }
            isolation = context
            maxSessions = 2
            maxInflightPerSession = 8
            requestTimeout = 30s
            idleTimeout = 120000  // a number is milliseconds
            toolPrefix = t
          }
          remote {
            url = "https://mcp.example.com/sse"
            transport = sse
            headers { Authorization = "Bearer "${?%1$s} }
          }
        }
        gateway {
          host = "0.0.0.0"
          port = 0
          authTokens = [token-one-0123456789abcdef0123456789, token-two-0123456789abcdef0123456789]
          allowedOrigins = ["https://app.example.com", "http://localhost:5173"]
          allowedHosts = [Gateway.Example.com, "::1", "[fe80::1]", 10.0.0.5]
          maxBodyBytes = 1 MiB
          sessionIdleTimeout = 5m
          maxStreamBufferBytes = 64 KiB
          requestHeaderTimeout = 5s
          maxConnections = 100
          maxStreamsPerIdentity = 3
          maxDownstreamSessions = 500
          maxDownstreamSessionsPerIdentity = 20
          maxInflightPerDownstreamSession = 16
          maxInflightPerIdentity = 8
          maxBatchLength = 50
        }
        """
                .formatted(UNSET_VARIABLE));
    SupervisorConfig config = ConfigLoader.load(file);

    ServerConfig tools = config.servers().get("tools");
    assertEquals(
        new ServerSpec.Stdio("java", List.of("-jar", "server.jar"), Map.of("PATH", path), null),
        tools.spec());
    assertEquals(
        ServerConfig.builder("tools", tools.spec())
            .isolation(Isolation.CONTEXT)
            .maxSessions(2)
            .maxInflightPerSession(8)
            .requestTimeout(Duration.ofSeconds(30))
            .idleTimeout(Duration.ofMinutes(2))
            .toolPrefix("t")
            .build(),
        tools);
    assertEquals(
        new ServerSpec.Sse(
            URI.create("https://mcp.example.com/sse"), Map.of("Authorization", "Bearer ")),
        config.servers().get("remote").spec());
    assertEquals(
        GatewayConfig.builder()
            .host("0.0.0.0")
            .port(0)
            .authTokens(
                List.of(
                    "token-one-0123456789abcdef0123456789", "token-two-0123456789abcdef0123456789"))
            .allowedOrigins(List.of("https://app.example.com", "http://localhost:5173"))
            .allowedHosts(List.of("gateway.example.com", "[::1]", "[fe80::1]", "10.0.0.5"))
            .maxBodyBytes(1024 * 1024)
            .sessionIdleTimeout(Duration.ofMinutes(5))
            .connectionLimits(new ConnectionLimits(64 * 1024, Duration.ofSeconds(5), 100, 3))
            .sessionLimits(new SessionLimits(500, 20, 16, 8, 50))
            .build(),
        config.gateway());
  }

  @Test
  void defaultsComeFromReferenceConf() {
    SupervisorConfig config =
        ConfigLoader.parse(
            "{\"mcpServers\": {\"s\": {\"url\": \"http://127.0.0.1:9000/mcp\"}}}", "t.json");
    Config server = ConfigLoader.reference().getConfig(ConfigLoader.SERVER_DEFAULTS);
    assertEquals(
        ServerConfig.builder(
                "s",
                new ServerSpec.StreamableHttp(URI.create("http://127.0.0.1:9000/mcp"), Map.of()))
            .isolation(Isolation.valueOf(server.getString("isolation").toUpperCase(Locale.ROOT)))
            .maxSessions(server.getInt("maxSessions"))
            .maxInflightPerSession(server.getInt("maxInflightPerSession"))
            .requestTimeout(server.getDuration("requestTimeout"))
            .idleTimeout(server.getDuration("idleTimeout"))
            .build(),
        config.servers().get("s"));
    Config gateway = ConfigLoader.reference().getConfig(ConfigLoader.GATEWAY_DEFAULTS);
    assertEquals(
        GatewayConfig.builder()
            .host(gateway.getString("host"))
            .port(gateway.getInt("port"))
            .maxBodyBytes(gateway.getBytes("maxBodyBytes"))
            .sessionIdleTimeout(gateway.getDuration("sessionIdleTimeout"))
            .build(),
        config.gateway());
  }

  @Test
  void aServerBuiltInCodeIsTheServerOfAFileThatSetsOnlyItsAddress() {
    ServerSpec spec =
        new ServerSpec.StreamableHttp(URI.create("http://127.0.0.1:9000/mcp"), Map.of());
    SupervisorConfig file =
        ConfigLoader.parse(
            "{\"mcpServers\": {\"s\": {\"url\": \"http://127.0.0.1:9000/mcp\","
                + " \"requestTimeout\": \"5s\"}}}",
            "t.json");
    ServerConfig built =
        ServerConfig.builder("s", spec).requestTimeout(Duration.ofSeconds(5)).build();
    assertEquals(file.servers().get("s"), built);
    assertEquals(Duration.ofSeconds(5), built.upstreamLimits().httpTimeout());
    assertEquals(
        ConfigLoader.parse("{\"mcpServers\": {}}", "t.json").gateway(), GatewayConfig.defaults());
  }

  @Test
  void referenceConfKeepsToItsOwnRoot() {
    Config reference =
        ConfigFactory.parseResources(
            ConfigLoader.class,
            "/reference.conf",
            ConfigParseOptions.defaults().setAllowMissing(false));
    assertEquals(
        Set.of(ConfigLoader.DEFAULTS_ROOT), reference.root().keySet(), "never touches pekko.*");
    assertEquals(
        Set.of(
            ConfigLoader.SERVER_DEFAULTS,
            ConfigLoader.GATEWAY_DEFAULTS,
            ConfigLoader.OAUTH_DEFAULTS,
            ConfigLoader.CLUSTER_DEFAULTS),
        reference.getObject(ConfigLoader.DEFAULTS_ROOT).keySet());
  }

  @Test
  void emptyServersSectionIsValid() {
    assertTrue(ConfigLoader.parse("{\"mcpServers\": {}}", "t.json").servers().isEmpty());
    assertTrue(
        ConfigLoader.parse(
                "{\"mcpServers\": {\"off\": {\"command\": \"x\", \"disabled\": true}}}", "t.json")
            .servers()
            .isEmpty());
  }

  @Test
  void clientOnlyFieldsAreAcceptedAndIgnored() {
    SupervisorConfig config =
        ConfigLoader.parse(
            """
        {
          "$schema": "https://example.com/mcp.schema.json",
          "mcpServers": {
            "s": {
              "command": "npx",
              "autoApprove": ["read"],
              "alwaysAllow": ["list"],
              "description": "a server",
              "trust": true
            }
          }
        }
        """,
            "t.json");
    assertEquals(
        new ServerSpec.Stdio("npx", List.of(), Map.of(), null), config.servers().get("s").spec());
  }

  @Test
  void numbersAndBooleansMayComeAsStringsFromTheEnvironment() {
    SupervisorConfig config =
        ConfigLoader.parse(
            """
        mcpServers { s { command = x, maxSessions = "3", disabled = "false" } }
        gateway { port = "9090", maxBodyBytes = "2048" }
        """,
            "t.conf");
    assertEquals(3, config.servers().get("s").maxSessions());
    assertEquals(9090, config.gateway().port());
    assertEquals(2048, config.gateway().maxBodyBytes());
  }

  @Test
  void protocolIsAutoUnlessTheServerNamesAnEra() {
    SupervisorConfig config =
        ConfigLoader.parse(
            """
        mcpServers {
          plain { command = x }
          old { command = x, protocol = 2025 }
          quoted { command = x, protocol = "2025" }
          new { url = "http://127.0.0.1:1/mcp", protocol = "2026-07-28" }
          found { url = "http://127.0.0.1:1/mcp", protocol = auto }
          legacy { url = "http://127.0.0.1:1/sse", transport = sse, protocol = auto }
        }
        """,
            "t.conf");
    assertEquals(UpstreamProtocol.AUTO, config.servers().get("plain").spec().protocol());
    assertEquals(UpstreamProtocol.SESSION, config.servers().get("old").spec().protocol());
    assertEquals(UpstreamProtocol.SESSION, config.servers().get("quoted").spec().protocol());
    assertEquals(UpstreamProtocol.STATELESS, config.servers().get("new").spec().protocol());
    assertEquals(UpstreamProtocol.AUTO, config.servers().get("found").spec().protocol());
    assertEquals(UpstreamProtocol.SESSION, config.servers().get("legacy").spec().protocol());
    assertTrue(config.servers().get("new").spec().toString().endsWith(", protocol=2026-07-28]"));
  }

  @Test
  void serversKeepFileOrder() {
    SupervisorConfig config =
        ConfigLoader.parse(
            """
        {"mcpServers": {
          "zeta": {"command": "z"},
          "alpha": {"command": "a"},
          "mid": {"command": "m"}
        }}
        """,
            "t.json");
    assertEquals(List.of("zeta", "alpha", "mid"), List.copyOf(config.servers().keySet()));
  }

  @Test
  void toolAllowAndDenyListsAreReadUnderEitherName() {
    SupervisorConfig config =
        ConfigLoader.parse(
            """
        {"mcpServers": {
          "plain": {"command": "x"},
          "allow": {"command": "x", "tools": ["read", "list"]},
          "deny": {"command": "x", "disabledTools": ["delete"]},
          "gemini": {"command": "x", "includeTools": ["read", "write"], "excludeTools": ["drop"]},
          "none": {"command": "x", "tools": []}
        }}
        """,
            "t.json");
    assertEquals(ToolFilter.ALL, config.servers().get("plain").toolFilter());
    assertEquals(
        new ToolFilter(Set.of("read", "list"), Set.of()),
        config.servers().get("allow").toolFilter());
    assertEquals(new ToolFilter(null, Set.of("delete")), config.servers().get("deny").toolFilter());
    assertEquals(
        new ToolFilter(Set.of("read", "write"), Set.of("drop")),
        config.servers().get("gemini").toolFilter());
    assertFalse(config.servers().get("none").toolFilter().exposes("read"));
  }

  @Test
  void interactiveToolsAreNoneUnlessDeclared() {
    SupervisorConfig config =
        ConfigLoader.parse(
            """
        {"mcpServers": {
          "plain": {"command": "x"},
          "asks": {"command": "x", "interactiveTools": ["sample", "elicit", "sample"]}
        }}
        """,
            "t.json");
    assertEquals(
        ConfigLoader.reference()
            .getConfig(ConfigLoader.SERVER_DEFAULTS)
            .getStringList("interactiveTools"),
        List.copyOf(config.servers().get("plain").interactiveTools()));
    assertEquals(Set.of(), config.servers().get("plain").interactiveTools());
    assertEquals(Set.of("sample", "elicit"), config.servers().get("asks").interactiveTools());
  }

  @Test
  void aServersRootsAreItsOwnElseTheTopLevelsElseNone() {
    SupervisorConfig config =
        ConfigLoader.parse(
            """
        {"roots": [{"uri": "file:///work/repo", "name": "repo"}, {"uri": "file:///tmp"}],
         "mcpServers": {
          "inherits": {"command": "x"},
          "own": {"command": "x", "roots": [{"uri": "file:///srv/data", "name": "data"}]},
          "none": {"command": "x", "roots": []}
        }}
        """,
            "t.json");
    assertEquals(
        List.of(new Root("file:///work/repo", "repo"), new Root("file:///tmp", null)),
        config.servers().get("inherits").roots());
    assertEquals(
        List.of(new Root("file:///srv/data", "data")), config.servers().get("own").roots());
    assertEquals(List.of(), config.servers().get("none").roots());
    assertEquals(
        List.of(),
        ConfigLoader.parse("{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}", "t.json")
            .servers()
            .get("a")
            .roots(),
        "by default the roots/list answer is an empty list");
  }

  @Test
  void explicitToolPrefixAndCwdAreKept() {
    ServerConfig server =
        ConfigLoader.parse(
                "{\"mcpServers\": {\"my.server\": {\"command\": \"x\", \"cwd\": \"/srv\", \"toolPrefix\": \"my_server\"}}}",
                "t.json")
            .servers()
            .get("my.server");
    assertEquals("my_server", server.toolPrefix());
    assertEquals("/srv", ((ServerSpec.Stdio) server.spec()).cwd());
    assertEquals(ServerKey.of("my.server", server.spec()), server.key());
  }

  @Test
  void inheritEnvIsOffUnlessSetAndOnlyForCommands() {
    String config =
        "{\"mcpServers\": {\"a\": {\"command\": \"x\"}, \"b\": {\"command\": \"x\", \"inheritEnv\": true}}}";
    Map<String, ServerConfig> servers = ConfigLoader.parse(config, "t.json").servers();
    assertFalse(((ServerSpec.Stdio) servers.get("a").spec()).inheritEnv());
    assertTrue(((ServerSpec.Stdio) servers.get("b").spec()).inheritEnv());

    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.parse(
                    "{\"mcpServers\": {\"h\": {\"url\": \"http://127.0.0.1:1/mcp\", \"inheritEnv\": true}}}",
                    "t.json"));
    assertTrue(e.getMessage().contains("inheritEnv"), e.getMessage());
  }

  @Test
  void byteOrderMarkAtTheStartOfAFileIsSkipped() throws IOException {
    Path file = dir.resolve("bom.json");
    Files.write(
        file,
        ("\uFEFF{\"mcpServers\": {\"s\": {\"command\": \"x\"}}}").getBytes(StandardCharsets.UTF_8));
    assertEquals(Set.of("s"), ConfigLoader.load(file).servers().keySet());
  }

  @Test
  void missingFileIsNamed() {
    Path file = dir.resolve("absent.json");
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(file));
    assertEquals(file + ": file not found", e.getMessage());
    assertEquals(file.toString(), e.origin());
    assertEquals("", e.path());
  }

  @Test
  void directoryIsNotAConfigFile() {
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(dir));
    assertEquals(dir + ": is a directory, not a config file", e.getMessage());
  }

  @Test
  void fileThatIsNotUtf8IsRejected() throws IOException {
    Path file = dir.resolve("latin1.json");
    Files.write(file, new byte[] {'{', '"', (byte) 0xE9, '"', ':', '1', '}'});
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(file));
    assertEquals(file + ": not UTF-8 text", e.getMessage());
  }

  @Test
  void errorsInAFileNameTheFileAndTheField() throws IOException {
    Path file =
        write(
            "servers.json",
            "{\"mcpServers\": {\"github\": {\"url\": \"https://x\", \"transport\": \"htp\"}}}");
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(file));
    assertEquals(
        file
            + ": mcpServers.github.transport: unknown transport \"htp\" (expected stdio, streamable-http or sse)",
        e.getMessage());
    assertEquals("mcpServers.github.transport", e.path());
  }

  @Test
  void disabledServerIsOnlyCheckedForUnknownFields() {
    assertTrue(
        ConfigLoader.parse("{\"mcpServers\": {\"wip\": {\"disabled\": true}}}", "t.json")
            .servers()
            .isEmpty());
    assertNull(
        ConfigLoader.parse("{\"mcpServers\": {\"wip\": {\"disabled\": true}}}", "t.json")
            .server("wip")
            .orElse(null));
  }

  private Path write(String name, String text) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, text);
    return file;
  }
}
