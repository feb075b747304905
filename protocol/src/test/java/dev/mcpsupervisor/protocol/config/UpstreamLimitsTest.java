package dev.mcpsupervisor.protocol.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.Config;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Per-server upstream limits: defaults, explicit values, validation, and the SSE retry clamp. */
class UpstreamLimitsTest {

  private static final String FILE = "limits.conf";

  private static UpstreamLimits limitsOf(String fields) {
    String text = "mcpServers { a { url = \"http://127.0.0.1:1/mcp\"\n" + fields + "\n} }";
    return ConfigLoader.parse(text, FILE).servers().get("a").upstreamLimits();
  }

  private static String errorOf(String fields) {
    String text = "mcpServers { a { url = \"http://127.0.0.1:1/mcp\"\n" + fields + "\n} }";
    return assertThrows(ConfigException.class, () -> ConfigLoader.parse(text, FILE)).getMessage();
  }

  @Test
  void defaultsComeFromReferenceConfAndPostsWaitAsLongAsARequest() {
    Config defaults = ConfigLoader.reference().getConfig(ConfigLoader.SERVER_DEFAULTS);
    UpstreamLimits expected =
        new UpstreamLimits(
            (int) defaults.getBytes("maxMessageBytes").longValue(),
            defaults.getDuration("requestTimeout"),
            defaults.getDuration("sseRetryMin"),
            defaults.getDuration("sseRetryMax"));
    assertEquals(expected, limitsOf(""));
    assertEquals(expected, UpstreamLimits.defaults());
    assertEquals(Duration.ofSeconds(5), limitsOf("requestTimeout = 5s").httpTimeout());
  }

  @Test
  void explicitValuesAreRead() {
    assertEquals(
        new UpstreamLimits(
            1024 * 1024, Duration.ofSeconds(7), Duration.ofMillis(200), Duration.ofSeconds(10)),
        limitsOf(
            "maxMessageBytes = 1 MiB, httpTimeout = 7s, sseRetryMin = 200ms, sseRetryMax = 10s"));
  }

  @Test
  void unusableValuesAreRejectedWithClearErrors() {
    assertEquals(
        FILE
            + ": mcpServers.a.maxMessageBytes: must be at most 16 MiB (the JSON-RPC parser's limit),"
            + " got 16777217 bytes",
        errorOf("maxMessageBytes = 16777217"));
    assertEquals(
        FILE + ": mcpServers.a.maxMessageBytes: must be greater than zero, got 0",
        errorOf("maxMessageBytes = 0"));
    assertEquals(
        FILE + ": mcpServers.a.httpTimeout: must be greater than zero, got \"0s\"",
        errorOf("httpTimeout = 0s"));
    assertEquals(
        FILE + ": mcpServers.a.sseRetryMax: must not be shorter than sseRetryMin (PT1S < PT2S)",
        errorOf("sseRetryMin = 2s, sseRetryMax = 1s"));
  }

  @Test
  void sseRetryIsClampedIntoTheConfiguredRange() {
    UpstreamLimits limits =
        new UpstreamLimits(
            1024 * 1024, Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofMinutes(1));
    assertEquals(1_000, limits.clampSseRetryMillis(1));
    assertEquals(1_000, limits.clampSseRetryMillis(0));
    assertEquals(2_500, limits.clampSseRetryMillis(2_500));
    assertEquals(60_000, limits.clampSseRetryMillis(Long.MAX_VALUE));
  }

  @Test
  void oldConstructorUsesTheDefaults() {
    ServerConfig server =
        ServerConfig.builder(
                "a", new ServerSpec.Stdio("x", java.util.List.of(), java.util.Map.of(), null))
            .isolation(Isolation.SHARED)
            .maxSessions(1)
            .maxInflightPerSession(1)
            .requestTimeout(Duration.ofSeconds(9))
            .idleTimeout(Duration.ofMinutes(1))
            .build();
    assertEquals(UpstreamLimits.defaults(Duration.ofSeconds(9)), server.upstreamLimits());
  }
}
