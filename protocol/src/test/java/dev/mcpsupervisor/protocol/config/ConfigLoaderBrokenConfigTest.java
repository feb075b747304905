package dev.mcpsupervisor.protocol.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every broken config is rejected with one line naming the file, the field and what is wrong. */
class ConfigLoaderBrokenConfigTest {

  private static final String FILE = "broken.json";

  static Stream<Arguments> brokenConfigs() {
    return Stream.of(
        // the file as a whole
        broken(
            "syntax error",
            "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n",
            "line 4: syntax error: expecting a close parentheses ')' here, not: end of file"),
        broken(
            "missing closing bracket",
            "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": [\"y\" }}}",
            "line 1: syntax error: List should have ended with ] or had a comma, instead had token: '}'"
                + " (if you want '}' to be part of a string value, then double-quote it)"),
        broken(
            "unset environment variable",
            "{\"mcpServers\": {\"a\": {\"command\": ${MCP_SUPERVISOR_TEST_UNSET_X}}}}",
            "line 1: ${MCP_SUPERVISOR_TEST_UNSET_X} is not set (no such setting or environment variable;"
                + " write ${?MCP_SUPERVISOR_TEST_UNSET_X} where it may be absent)"),
        broken(
            "no servers at all",
            "{}",
            "mcpServers: missing (no server is configured; write \"mcpServers\": {} to run with none)"),
        broken(
            "both mcpServers and servers",
            "{\"mcpServers\": {}, \"servers\": {}}",
            "servers: use either mcpServers or servers, not both"),
        broken(
            "mcpServers a list", "{\"mcpServers\": []}", "mcpServers: must be an object, got list"),
        broken(
            "server a string",
            "{\"mcpServers\": {\"a\": \"npx server\"}}",
            "mcpServers.a: must be an object, got string"),
        broken(
            "top-level typo",
            "{\"mcpServer\": {}}",
            "mcpServer: unknown field; did you mean \"mcpServers\"?"),

        // transports
        broken(
            "unknown transport",
            server("\"url\": \"https://x.example\", \"transport\": \"htp\""),
            "mcpServers.a.transport: unknown transport \"htp\" (expected stdio, streamable-http or sse)"),
        broken(
            "unknown type",
            "{\"servers\": {\"a\": {\"type\": \"websocket\", \"url\": \"wss://x.example\"}}}",
            "servers.a.type: unknown type \"websocket\" (expected stdio, http or sse)"),
        broken(
            "unknown protocol",
            server("\"command\": \"npx\", \"protocol\": \"2026\""),
            "mcpServers.a.protocol: unknown protocol \"2026\" (expected auto, 2025 or 2026-07-28)"),
        broken(
            "stateless protocol on the sse transport",
            server(
                "\"url\": \"https://x.example\", \"transport\": \"sse\", \"protocol\": \"2026-07-28\""),
            "mcpServers.a.protocol: the sse transport (HTTP+SSE, 2024-11-05) cannot carry 2026-07-28;"
                + " use streamable-http"),
        broken(
            "both transport and type",
            server("\"url\": \"https://x.example\", \"transport\": \"sse\", \"type\": \"sse\""),
            "mcpServers.a.type: use either transport or type, not both"),
        broken(
            "both command and url",
            server("\"command\": \"npx\", \"url\": \"https://x.example\""),
            "mcpServers.a: has both command and url; a server is either a command (stdio) or a url"
                + " (streamable-http or sse)"),
        broken(
            "neither command nor url",
            server("\"args\": [\"-y\"]"),
            "mcpServers.a: needs either command (stdio) or url (streamable-http or sse)"),
        broken(
            "stdio transport with a url",
            server("\"url\": \"https://x.example\", \"transport\": \"stdio\""),
            "mcpServers.a.transport: \"stdio\" needs command, not url"),
        broken(
            "sse transport with a command",
            server("\"command\": \"npx\", \"transport\": \"sse\""),
            "mcpServers.a.transport: \"sse\" needs url, not command"),
        broken(
            "headers on a stdio server",
            server("\"command\": \"npx\", \"headers\": {\"A\": \"b\"}"),
            "mcpServers.a.headers: only for url servers"),
        broken(
            "env on a url server",
            server("\"url\": \"https://x.example\", \"env\": {\"A\": \"b\"}"),
            "mcpServers.a.env: only for command (stdio) servers"),

        // url
        broken(
            "url not http",
            server("\"url\": \"ftp://x.example/mcp\""),
            "mcpServers.a.url: must start with http:// or https://"),
        broken(
            "url without scheme",
            server("\"url\": \"localhost:8080/mcp\""),
            "mcpServers.a.url: must start with http:// or https://"),
        broken(
            "url without host",
            server("\"url\": \"http:///mcp\""),
            "mcpServers.a.url: has no host"),
        broken(
            "url with a space",
            server("\"url\": \"https://exa mple.com/mcp\""),
            "mcpServers.a.url: not a valid URL (Illegal character in authority at index 8)"),
        broken(
            "url with credentials",
            server("\"url\": \"https://user:pw@x.example/mcp\""),
            "mcpServers.a.url: must not hold credentials (user:password@); send them in headers"),
        broken(
            "header name with a space",
            server("\"url\": \"https://x.example\", \"headers\": {\"X Key\": \"v\"}"),
            "mcpServers.a.headers.\"X Key\": not a valid HTTP header name"),

        // types
        broken(
            "command empty",
            server("\"command\": \"\""),
            "mcpServers.a.command: must not be empty"),
        broken(
            "command a list",
            server("\"command\": [\"npx\", \"-y\"]"),
            "mcpServers.a.command: must be a string, got list"),
        broken(
            "args a string",
            server("\"command\": \"npx\", \"args\": \"-y server\""),
            "mcpServers.a.args: must be a list of strings, got string"),
        broken(
            "args element a number",
            server("\"command\": \"npx\", \"args\": [\"--port\", 3000]"),
            "mcpServers.a.args[1]: must be a string, got number"),
        broken(
            "env a list",
            server("\"command\": \"npx\", \"env\": [\"A=b\"]"),
            "mcpServers.a.env: must be an object, got list"),
        broken(
            "env value a number",
            server("\"command\": \"npx\", \"env\": {\"PORT\": 3000}"),
            "mcpServers.a.env.PORT: must be a string, got number"),
        broken(
            "cwd empty",
            server("\"command\": \"npx\", \"cwd\": \"\""),
            "mcpServers.a.cwd: must not be empty"),
        broken(
            "disabled not a boolean",
            server("\"command\": \"npx\", \"disabled\": \"maybe\""),
            "mcpServers.a.disabled: must be true or false, got \"maybe\""),

        // pooling and timeouts
        broken(
            "negative timeout",
            server("\"command\": \"npx\", \"requestTimeout\": \"-5s\""),
            "mcpServers.a.requestTimeout: must be greater than zero, got \"-5s\""),
        broken(
            "zero idle timeout",
            server("\"command\": \"npx\", \"idleTimeout\": 0"),
            "mcpServers.a.idleTimeout: must be greater than zero, got 0"),
        broken(
            "timeout not a duration",
            server("\"command\": \"npx\", \"requestTimeout\": \"soon\""),
            "mcpServers.a.requestTimeout: must be a duration such as \"30s\" or a number of milliseconds, got \"soon\""),
        broken(
            "maxSessions zero",
            server("\"command\": \"npx\", \"maxSessions\": 0"),
            "mcpServers.a.maxSessions: must be at least 1, got 0"),
        broken(
            "maxInflightPerSession a word",
            server("\"command\": \"npx\", \"maxInflightPerSession\": \"lots\""),
            "mcpServers.a.maxInflightPerSession: must be an integer, got \"lots\""),
        broken(
            "maxSessions a fraction",
            server("\"command\": \"npx\", \"maxSessions\": 1.5"),
            "mcpServers.a.maxSessions: must be an integer, got 1.5"),
        broken(
            "bad isolation",
            server("\"command\": \"npx\", \"isolation\": \"per-user\""),
            "mcpServers.a.isolation: unknown isolation \"per-user\" (expected shared or context)"),

        // tool allow- and deny-lists
        broken(
            "both tools and includeTools",
            server("\"command\": \"x\", \"tools\": [\"a\"], \"includeTools\": [\"a\"]"),
            "mcpServers.a.includeTools: use either tools or includeTools, not both"),
        broken(
            "both disabledTools and excludeTools",
            server("\"command\": \"x\", \"disabledTools\": [\"a\"], \"excludeTools\": [\"b\"]"),
            "mcpServers.a.excludeTools: use either disabledTools or excludeTools, not both"),
        broken(
            "one tool allowed and disabled",
            server(
                "\"command\": \"x\", \"tools\": [\"read\", \"write\"], \"disabledTools\": [\"write\"]"),
            "mcpServers.a.disabledTools: \"write\" is in both tools and disabledTools; keep it in one"),
        broken(
            "one tool included and excluded",
            server(
                "\"command\": \"x\", \"includeTools\": [\"read\"], \"excludeTools\": [\"read\"]"),
            "mcpServers.a.excludeTools: \"read\" is in both includeTools and excludeTools; keep it in one"),
        broken(
            "empty tool name",
            server("\"command\": \"x\", \"tools\": [\"read\", \" \"]"),
            "mcpServers.a.tools: tool names must not be empty"),
        broken(
            "empty interactive tool name",
            server("\"command\": \"x\", \"interactiveTools\": [\"sample\", \"\"]"),
            "mcpServers.a.interactiveTools: tool names must not be empty"),
        broken(
            "interactiveTools a string",
            server("\"command\": \"x\", \"interactiveTools\": \"sample\""),
            "mcpServers.a.interactiveTools: must be a list of strings, got string"),
        broken(
            "roots a string",
            server("\"command\": \"x\", \"roots\": \"file:///work\""),
            "mcpServers.a.roots: must be a list, got string"),
        broken(
            "root a string",
            server("\"command\": \"x\", \"roots\": [\"file:///work\"]"),
            "mcpServers.a.roots[0]: must be an object, got string"),
        broken(
            "root without uri",
            server("\"command\": \"x\", \"roots\": [{\"name\": \"work\"}]"),
            "mcpServers.a.roots[0].uri: missing (a root is a file:// URI and an optional name)"),
        broken(
            "root uri not a file",
            server("\"command\": \"x\", \"roots\": [{\"uri\": \"https://x.example/repo\"}]"),
            "mcpServers.a.roots[0].uri: must be a file:// URI (MCP roots are files), got"
                + " \"https://x.example/repo\""),
        broken(
            "root uri not a URI",
            server("\"command\": \"x\", \"roots\": [{\"uri\": \"file:///my work\"}]"),
            "mcpServers.a.roots[0].uri: not a valid URI (Illegal character in path at index 10)"),
        broken(
            "root url",
            server("\"command\": \"x\", \"roots\": [{\"url\": \"file:///work\"}]"),
            "mcpServers.a.roots[0].url: unknown field; did you mean \"uri\"?"),
        broken(
            "root with an empty name",
            server("\"command\": \"x\", \"roots\": [{\"uri\": \"file:///w\", \"name\": \"\"}]"),
            "mcpServers.a.roots[0].name: must not be empty"),
        broken(
            "root listed twice",
            server(
                "\"command\": \"x\", \"roots\": [{\"uri\": \"file:///w\"}, {\"uri\": \"file:///w\"}]"),
            "mcpServers.a.roots[1].uri: \"file:///w\" is listed twice"),
        broken(
            "top-level root a relative path",
            "{\"mcpServers\": {}, \"roots\": [{\"uri\": \"work/repo\"}]}",
            "roots[0].uri: must be a file:// URI (MCP roots are files), got \"work/repo\""),
        broken(
            "tools a string",
            server("\"command\": \"x\", \"disabledTools\": \"write\""),
            "mcpServers.a.disabledTools: must be a list of strings, got string"),

        // unknown and unsupported fields
        broken(
            "comand",
            server("\"comand\": \"npx\""),
            "mcpServers.a.comand: unknown field; did you mean \"command\"?"),
        broken(
            "headres",
            server("\"url\": \"https://x.example\", \"headres\": {}"),
            "mcpServers.a.headres: unknown field; did you mean \"headers\"?"),
        broken(
            "requestTimout",
            server("\"command\": \"npx\", \"requestTimout\": \"5s\""),
            "mcpServers.a.requestTimout: unknown field; did you mean \"requestTimeout\"?"),
        broken(
            "field with no near miss",
            server("\"command\": \"npx\", \"restartPolicy\": \"always\""),
            "mcpServers.a.restartPolicy: unknown field (expected one of command, args, env, cwd, inheritEnv, url, headers, passCallerToken, tokenExchange,"
                + " transport, type, protocol, isolation, maxSessions, maxInflightPerSession, requestTimeout, idleTimeout,"
                + " toolPrefix, tools, includeTools, disabledTools, excludeTools, disabled, maxMessageBytes, httpTimeout,"
                + " sseRetryMin, sseRetryMax, interactiveTools, roots)"),
        broken(
            "envFile",
            server("\"command\": \"npx\", \"envFile\": \"${workspaceFolder}/.env\""),
            "mcpServers.a.envFile: not supported; put the variables in env (values may use ${?VAR} substitution)"),
        broken(
            "timeout",
            server("\"command\": \"npx\", \"timeout\": 60"),
            "mcpServers.a.timeout: not supported; use requestTimeout, a duration such as \"60s\""
                + " (clients disagree on the unit of timeout)"),
        broken(
            "VS Code input variable",
            server("\"command\": \"npx\", \"env\": {\"KEY\": \"${input:api-key}\"}"),
            "mcpServers.a.env.KEY: \"${input:api-key}\" is a client-side variable, which is not supported;"
                + " use HOCON substitution outside the quotes instead, e.g. \"Bearer \"${?TOKEN}"),

        // tool prefixes and names
        broken(
            "duplicate toolPrefix",
            "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"toolPrefix\": \"t\"},\n"
                + "\"b\": {\"command\": \"y\", \"toolPrefix\": \"t\"}}}",
            "mcpServers.b.toolPrefix: tool prefix \"t\" is already used by server \"a\""),
        broken(
            "toolPrefix with a double underscore",
            server("\"command\": \"x\", \"toolPrefix\": \"a__b\""),
            "mcpServers.a.toolPrefix: \"a__b\" is not a valid tool prefix (\"__\" separates prefix and tool name,"
                + " so a prefix cannot contain \"__\" or end with '_')"),
        broken(
            "toolPrefix with a space",
            server("\"command\": \"x\", \"toolPrefix\": \"my tools\""),
            "mcpServers.a.toolPrefix: \"my tools\" is not a valid tool prefix (letters, digits, '-' and '_' only)"),
        broken(
            "server name with a slash",
            "{\"mcpServers\": {\"@org/server\": {\"command\": \"x\"}}}",
            "mcpServers.\"@org/server\": server name must be letters, digits, '.', '-' and '_' only"
                + " (it is used in URLs and tool names)"),

        // gateway
        broken(
            "port too large",
            gateway("\"port\": 70000"),
            "gateway.port: must be between 0 and 65535, got 70000"),
        broken(
            "port negative",
            gateway("\"port\": -1"),
            "gateway.port: must be between 0 and 65535, got -1"),
        broken(
            "port a word",
            gateway("\"port\": \"http\""),
            "gateway.port: must be an integer, got \"http\""),
        broken(
            "gateway typo",
            gateway("\"prot\": 80"),
            "gateway.prot: unknown field; did you mean \"port\"?"),
        broken(
            "auth section",
            gateway("\"auth\": {\"tokens\": [\"t\"]}"),
            "gateway.auth: not supported; write the bearer tokens as authTokens = [\"...\"]"),
        broken(
            "empty auth token",
            gateway("\"authTokens\": [\"\"]"),
            "gateway.authTokens[0]: must be non-empty, without spaces"),
        broken(
            "short auth token, never echoed",
            gateway("\"authTokens\": [\"0123456789abcdef0123456789abcdef\", \"s3cret-but-short\"]"),
            "gateway.authTokens[1]: must be at least 32 characters, this one has 16 (e.g. openssl"
                + " rand -base64 32)"),
        broken(
            "allowed host with port",
            gateway("\"allowedHosts\": [\"gateway.example.com:8080\"]"),
            "gateway.allowedHosts[0]: \"gateway.example.com:8080\" is not a host name (expected a name or"
                + " address without scheme or port, e.g. \"gateway.example.com\", or \"*\" for any)"),
        broken(
            "allowed host with scheme",
            gateway("\"allowedHosts\": [\"https://gateway.example.com\"]"),
            "gateway.allowedHosts[0]: \"https://gateway.example.com\" is not a host name (expected a name"
                + " or address without scheme or port, e.g. \"gateway.example.com\", or \"*\" for any)"),
        broken(
            "any host beside names",
            gateway("\"allowedHosts\": [\"gateway.example.com\", \"*\"]"),
            "gateway.allowedHosts[1]: \"*\" accepts any host and must be the only entry"),
        broken(
            "allowed origin without scheme",
            gateway("\"allowedOrigins\": [\"app.example.com\"]"),
            "gateway.allowedOrigins[0]: \"app.example.com\" is not an origin (expected scheme://host[:port],"
                + " e.g. \"https://app.example.com\")"),
        broken(
            "body limit a word",
            gateway("\"maxBodyBytes\": \"huge\""),
            "gateway.maxBodyBytes: must be a size such as \"4 MiB\" or a number of bytes, got \"huge\""),
        broken(
            "zero session idle timeout",
            gateway("\"sessionIdleTimeout\": \"0s\""),
            "gateway.sessionIdleTimeout: must be greater than zero, got \"0s\""),
        broken(
            "zero stream buffer",
            gateway("\"maxStreamBufferBytes\": 0"),
            "gateway.maxStreamBufferBytes: must be greater than zero, got 0"),
        broken(
            "zero header timeout",
            gateway("\"requestHeaderTimeout\": \"0s\""),
            "gateway.requestHeaderTimeout: must be greater than zero, got \"0s\""),
        broken(
            "no connections",
            gateway("\"maxConnections\": 0"),
            "gateway.maxConnections: must be at least 1, got 0"),
        broken(
            "no streams per identity",
            gateway("\"maxStreamsPerIdentity\": -1"),
            "gateway.maxStreamsPerIdentity: must be at least 1, got -1"),
        broken(
            "zero downstream sessions",
            gateway("\"maxDownstreamSessions\": 0"),
            "gateway.maxDownstreamSessions: must be at least 1, got 0"),
        broken(
            "in-flight limit a word",
            gateway("\"maxInflightPerDownstreamSession\": \"many\""),
            "gateway.maxInflightPerDownstreamSession: must be an integer, got \"many\""),
        broken(
            "negative batch length",
            gateway("\"maxBatchLength\": -1"),
            "gateway.maxBatchLength: must be at least 1, got -1"),
        broken(
            "gateway a list",
            "{\"mcpServers\": {}, \"gateway\": []}",
            "gateway: must be an object, got list"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("brokenConfigs")
  void brokenConfigIsRejectedWithTheExactMessage(String description, String text, String expected) {
    ConfigException e =
        assertThrows(ConfigException.class, () -> ConfigLoader.parse(text, FILE), description);
    assertEquals(FILE + ": " + expected, e.getMessage(), description);
    assertEquals(FILE, e.origin());
  }

  private static Arguments broken(String description, String text, String expected) {
    return Arguments.of(description, text, expected);
  }

  private static String server(String fields) {
    return "{\"mcpServers\": {\"a\": {" + fields + "}}}";
  }

  private static String gateway(String fields) {
    return "{\"mcpServers\": {}, \"gateway\": {" + fields + "}}";
  }
}
