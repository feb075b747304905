package dev.mcpsupervisor.http.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

class LiveChangesTest {

  private static final String TOKEN = "t".repeat(40);

  @Test
  void serversAddedRemovedOrChangedAccessSettingsAndLimitsNeedNoRestart() {
    SupervisorConfig running =
        config(
            "{a: {command: x, args: [\"1\"]}, b: {command: y}}",
            "authTokens: [\""
                + TOKEN
                + "\"], allowedOrigins: [\"https://a.example\"],"
                + " identities: {token-1: {servers: [a]}}");
    SupervisorConfig next =
        config(
            "{a: {command: x, args: [\"2\"], maxSessions: 3, toolPrefix: aa},"
                + " c: {command: z, disabledTools: [t]}}",
            "authTokens: [\""
                + TOKEN.replace('t', 'u')
                + "\"], allowedOrigins: [\"https://b.example\"],"
                + " allowedHosts: [\"gw.example\"], identities: {token-1: {servers: [c]}},"
                + " maxBodyBytes: 1000, maxBatchLength: 3, maxDownstreamSessions: 5,"
                + " maxStreamsPerIdentity: 2, maxStreamBufferBytes: 4096");

    assertEquals(List.of(), LiveChanges.needingRestart(running, next));
  }

  @Test
  void theBindIsNamedNeverItsValuesAndAuthenticationOffAndTheIdleTimeoutAreLive() {
    SupervisorConfig running =
        config(
            "{a: {command: x}}",
            "host: \"127.0.0.1\", port: 8080, authTokens: [\"" + TOKEN + "\"]");
    SupervisorConfig next =
        config(
            "{a: {command: x}}",
            "host: \"127.0.0.2\", port: 9090, maxBatchLength: 3, maxBodyBytes: 1000,"
                + " maxConnections: 10, sessionIdleTimeout: 1m");

    List<String> named = LiveChanges.needingRestart(running, next);

    assertEquals(List.of("gateway.host", "gateway.port", "gateway.maxConnections"), named);
    assertEquals(false, String.join(" ", named).contains(TOKEN));
  }

  @Test
  void theIdleTimeoutOfAClusterNodeChangesLive() {
    String cluster =
        "cluster: {host: \"127.0.0.1\", port: 2551, seedNodes: [\"127.0.0.1:2551\"], secret: \""
            + TOKEN
            + "\"}, authTokens: [\""
            + TOKEN
            + "\"]";
    SupervisorConfig running = config("{a: {command: x}}", cluster);
    SupervisorConfig next = config("{a: {command: x}}", cluster + ", sessionIdleTimeout: 1m");

    assertEquals(List.of(), LiveChanges.needingRestart(running, next));
  }

  private static SupervisorConfig config(String servers, String gateway) {
    return ConfigLoader.parse(
        "mcpServers: " + servers + "\ngateway: {" + gateway + "}", "live-changes test");
  }
}
