package dev.mcpsupervisor.protocol.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ServerKeyTest {

  private static final String ENV_SECRET = "secret-env-value";
  private static final String HEADER_SECRET = "Bearer secret-header-value";

  private static final ServerSpec.Stdio STDIO =
      new ServerSpec.Stdio(
          "npx",
          List.of("-y", "@modelcontextprotocol/server-filesystem", "/tmp"),
          Map.of("API_KEY", ENV_SECRET, "DEBUG", "1"),
          "/work");
  private static final ServerSpec.StreamableHttp HTTP =
      new ServerSpec.StreamableHttp(
          URI.create("https://api.example.com/mcp"), Map.of("Authorization", HEADER_SECRET));

  /**
   * Computed once (and cross-checked with an independent implementation of the documented
   * encoding): if this test fails, keys differ from those of earlier runs and other JVMs — change
   * the encoding version, not this digest.
   */
  @Test
  void digestIsTheSameInEveryRunAndJvm() {
    assertEquals(
        "2071597e0f51fc994d6581330a592d5a083664b433b96d6737981d8fecd88f6e",
        ServerKey.of("fs", STDIO).digest());
    assertEquals(
        "37f3a7a474d20054687a5fc8bf9d339d12d18b43fe78266466993c43f826b309",
        ServerKey.of("gh", HTTP).digest());
  }

  @Test
  void theProtocolLeftAtAutoKeepsTheKeyAsItWas() {
    assertEquals(
        ServerKey.of("fs", STDIO),
        ServerKey.of(
            "fs",
            new ServerSpec.Stdio(
                STDIO.command(), STDIO.args(), STDIO.env(), STDIO.cwd(), UpstreamProtocol.AUTO)));
    assertEquals(
        UpstreamProtocol.STATELESS,
        new ServerSpec.StreamableHttp(HTTP.url(), HTTP.headers(), UpstreamProtocol.STATELESS)
            .withExtraHeaders(Map.of("X-User", "alice"))
            .protocol());
  }

  @Test
  void sameSpecGivesTheSameKey() {
    Map<String, String> reversedEnv = new LinkedHashMap<>();
    reversedEnv.put("DEBUG", "1");
    reversedEnv.put("API_KEY", ENV_SECRET);
    ServerSpec rebuilt =
        new ServerSpec.Stdio("npx", List.copyOf(STDIO.args()), reversedEnv, "/work");
    assertEquals(ServerKey.of("fs", STDIO), ServerKey.of("fs", STDIO));
    assertEquals(ServerKey.of("fs", STDIO), ServerKey.of("fs", rebuilt));
    assertEquals(64, ServerKey.of("fs", STDIO).digest().length());
  }

  @Test
  void headerNamesAreCaseInsensitive() {
    ServerSpec lowerCase =
        new ServerSpec.StreamableHttp(HTTP.url(), Map.of("authorization", HEADER_SECRET));
    assertEquals(ServerKey.of("gh", HTTP), ServerKey.of("gh", lowerCase));
  }

  static Stream<Arguments> changedSpecs() {
    return Stream.of(
        changed(
            "command", STDIO, new ServerSpec.Stdio("uvx", STDIO.args(), STDIO.env(), STDIO.cwd())),
        changed(
            "an argument",
            STDIO,
            new ServerSpec.Stdio("npx", List.of("-y", "other", "/tmp"), STDIO.env(), "/work")),
        changed(
            "argument order",
            STDIO,
            new ServerSpec.Stdio(
                "npx",
                List.of("/tmp", "-y", "@modelcontextprotocol/server-filesystem"),
                STDIO.env(),
                "/work")),
        changed(
            "inheritEnv",
            STDIO,
            new ServerSpec.Stdio(
                "npx", STDIO.args(), STDIO.env(), "/work", UpstreamProtocol.AUTO, true)),
        changed("argument split", stdioArgs(List.of("a b")), stdioArgs(List.of("a", "b"))),
        changed("argument boundary", stdioArgs(List.of("ab", "c")), stdioArgs(List.of("a", "bc"))),
        changed("empty argument", stdioArgs(List.of()), stdioArgs(List.of(""))),
        changed(
            "an env value",
            STDIO,
            new ServerSpec.Stdio(
                "npx", STDIO.args(), Map.of("API_KEY", "other", "DEBUG", "1"), "/work")),
        changed(
            "an env name",
            STDIO,
            new ServerSpec.Stdio(
                "npx", STDIO.args(), Map.of("API_KEY", ENV_SECRET, "debug", "1"), "/work")),
        changed(
            "an added env variable",
            STDIO,
            new ServerSpec.Stdio(
                "npx",
                STDIO.args(),
                Map.of("API_KEY", ENV_SECRET, "DEBUG", "1", "X", ""),
                "/work")),
        changed(
            "env name and value boundary",
            stdioEnv(Map.of("A", "B=C")),
            stdioEnv(Map.of("A=B", "C"))),
        changed("cwd", STDIO, new ServerSpec.Stdio("npx", STDIO.args(), STDIO.env(), "/other")),
        changed(
            "cwd absent or empty",
            new ServerSpec.Stdio("npx", List.of(), Map.of(), null),
            new ServerSpec.Stdio("npx", List.of(), Map.of(), "")),
        changed("transport", HTTP, new ServerSpec.Sse(HTTP.url(), HTTP.headers())),
        changed(
            "url",
            HTTP,
            new ServerSpec.StreamableHttp(
                URI.create("https://api.example.com/mcp/"), HTTP.headers())),
        changed(
            "a header value",
            HTTP,
            new ServerSpec.StreamableHttp(HTTP.url(), Map.of("Authorization", "Bearer other"))),
        changed(
            "a header name",
            HTTP,
            new ServerSpec.StreamableHttp(HTTP.url(), Map.of("X-Authorization", HEADER_SECRET))),
        changed("a forwarded header", HTTP, HTTP.withExtraHeaders(Map.of("X-User", "alice"))),
        changed(
            "the protocol of a stdio server",
            STDIO,
            new ServerSpec.Stdio(
                "npx", STDIO.args(), STDIO.env(), "/work", UpstreamProtocol.STATELESS)),
        changed(
            "the protocol of an http server",
            new ServerSpec.StreamableHttp(HTTP.url(), HTTP.headers(), UpstreamProtocol.SESSION),
            new ServerSpec.StreamableHttp(HTTP.url(), HTTP.headers(), UpstreamProtocol.STATELESS)),
        changed(
            "another forwarded identity",
            HTTP.withExtraHeaders(Map.of("X-User", "alice")),
            HTTP.withExtraHeaders(Map.of("X-User", "bob"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("changedSpecs")
  void anyFieldChangeGivesANewKey(String change, ServerSpec before, ServerSpec after) {
    assertNotEquals(ServerKey.of("s", before).digest(), ServerKey.of("s", after).digest(), change);
  }

  @Test
  void idIsTheNameAndAShortHmacOfTheDigest() {
    ServerKey key = ServerKey.of("fs", STDIO);
    assertTrue(key.id().matches("fs-[0-9a-f]{12}"), key.id());
    assertEquals(key.id(), ServerKey.of("fs", STDIO).id(), "stable within the process");
    assertNotEquals(key.id(), ServerKey.of("fs", HTTP).id());
    assertEquals(key.id(), key.toString());
    assertTrue(key.id().matches("[A-Za-z0-9_.-]+"), "usable as an actor name and entity id");
  }

  /** A digest prefix in /admin would let a watcher test guesses of a short secret offline. */
  @Test
  void idRevealsNoPartOfTheDigest() {
    ServerKey key = ServerKey.of("fs", STDIO);
    assertFalse(key.id().endsWith(key.digest().substring(0, 12)), key.id());
  }

  @Test
  void secretsAreNeverPrinted() {
    for (ServerSpec spec : List.of(STDIO, HTTP, new ServerSpec.Sse(HTTP.url(), HTTP.headers()))) {
      ServerKey key = ServerKey.of("s", spec);
      for (String printed : List.of(key.toString(), key.id(), spec.toString())) {
        assertFalse(printed.contains(ENV_SECRET), printed);
        assertFalse(printed.contains("secret-header-value"), printed);
      }
    }
  }

  @Test
  void urlSecretsAreNeverPrinted() {
    ServerSpec spec =
        new ServerSpec.StreamableHttp(
            URI.create(
                "https://user:pw@mcp.example.com:8443/v1/mcp?api_key=secret-query-value#frag"),
            Map.of());
    assertEquals("StreamableHttp[url=https://mcp.example.com:8443, headers=[]]", spec.toString());
    assertEquals(
        "Sse[url=http://mcp.example.com, headers=[]]",
        new ServerSpec.Sse(URI.create("http://mcp.example.com/sse"), Map.of()).toString());
  }

  @Test
  void forwardedHeadersReplaceConfiguredOnesWhateverTheirCase() {
    ServerSpec.StreamableHttp forwarded =
        (ServerSpec.StreamableHttp) HTTP.withExtraHeaders(Map.of("authorization", "Bearer caller"));
    assertEquals(Map.of("authorization", "Bearer caller"), forwarded.headers());
  }

  private static Arguments changed(String change, ServerSpec before, ServerSpec after) {
    return Arguments.of(change, before, after);
  }

  private static ServerSpec stdioArgs(List<String> args) {
    return new ServerSpec.Stdio("cmd", args, Map.of(), null);
  }

  private static ServerSpec stdioEnv(Map<String, String> env) {
    return new ServerSpec.Stdio("cmd", List.of(), env, null);
  }
}
