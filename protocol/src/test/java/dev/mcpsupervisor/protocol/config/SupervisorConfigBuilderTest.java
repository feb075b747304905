package dev.mcpsupervisor.protocol.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A configuration built in code equals the one the same file gives: defaults and checks alike. */
class SupervisorConfigBuilderTest {

  @Test
  void builtConfigEqualsTheFileWithTheSameServers() {
    SupervisorConfig built =
        SupervisorConfig.builder()
            .stdio("zeta", "npx", "-y", "@modelcontextprotocol/server-everything")
            .http("alpha", "https://mcp.example.com/mcp", Map.of("Authorization", "Bearer t"))
            .option("alpha", "isolation", "context")
            .option("alpha", "requestTimeout", Duration.ofSeconds(45))
            .option("zeta", "disabledTools", List.of("sleep"))
            .build();
    SupervisorConfig fromFile =
        ConfigLoader.parse(
            """
            {"mcpServers": {
              "zeta": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"],
                       "disabledTools": ["sleep"]},
              "alpha": {"url": "https://mcp.example.com/mcp",
                        "headers": {"Authorization": "Bearer t"},
                        "isolation": "context", "requestTimeout": "45s"}
            }}
            """,
            "servers.json");

    assertEquals(fromFile.servers(), built.servers());
    assertEquals(List.of("zeta", "alpha"), List.copyOf(built.servers().keySet()), "added order");
    assertEquals(fromFile.gateway(), built.gateway());
    assertEquals(Isolation.CONTEXT, built.servers().get("alpha").isolation());
    assertEquals(
        new ServerSpec.StreamableHttp(
            URI.create("https://mcp.example.com/mcp"), Map.of("Authorization", "Bearer t")),
        built.servers().get("alpha").spec());
  }

  @Test
  void rootsBuiltInCodeAreEveryServersUnlessOneHasItsOwn() {
    SupervisorConfig built =
        SupervisorConfig.builder()
            .stdio("plain", "npx")
            .stdio("own", "npx")
            .option("own", "roots", List.of(Map.of("uri", "file:///srv")))
            .roots(List.of(new Root("file:///work", "work"), new Root("file:///tmp", null)))
            .build();
    assertEquals(
        List.of(new Root("file:///work", "work"), new Root("file:///tmp", null)),
        built.servers().get("plain").roots());
    assertEquals(List.of(new Root("file:///srv", null)), built.servers().get("own").roots());
    ConfigException error =
        assertThrows(
            ConfigException.class,
            SupervisorConfig.builder().stdio("a", "npx").roots(List.of(new Root("/work", null)))
                ::build);
    assertTrue(error.getMessage().contains("roots[0].uri"), error.getMessage());
  }

  @Test
  void aBadOptionFailsNamingTheServerAndTheField() {
    SupervisorConfigBuilder builder =
        SupervisorConfig.builder().stdio("files", "npx").option("files", "maxSessions", 0);

    ConfigException error = assertThrows(ConfigException.class, builder::build);
    assertTrue(error.getMessage().contains("files"), error.getMessage());
    assertTrue(error.getMessage().contains("maxSessions"), error.getMessage());
    assertTrue(error.getMessage().contains(SupervisorConfigBuilder.ORIGIN), error.getMessage());
  }

  @Test
  void anOptionOfAServerNotAddedIsRefusedAtOnce() {
    SupervisorConfigBuilder builder = SupervisorConfig.builder();

    assertThrows(IllegalArgumentException.class, () -> builder.option("files", "isolation", "x"));
  }
}
