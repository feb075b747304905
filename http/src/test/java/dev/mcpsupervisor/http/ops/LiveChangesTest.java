package dev.mcpsupervisor.http.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

class LiveChangesTest {

  private static final String TOKEN = "t".repeat(40);

  @Test
  void serversChangedInPlaceNeedNoRestart() {
    SupervisorConfig running = config("{a: {command: x, args: [\"1\"]}, b: {command: y}}", "");
    SupervisorConfig next =
        config(
            "{a: {command: x, args: [\"2\"], maxSessions: 3},"
                + " b: {command: y, disabledTools: [t]}}",
            "");

    assertEquals(List.of(), LiveChanges.needingRestart(running, next));
  }

  @Test
  void addedOrRemovedServersAPrefixAndGatewaySettingsAreNamedNeverTheirValues() {
    SupervisorConfig running =
        config(
            "{a: {command: x}, b: {command: y}}",
            "host: \"127.0.0.1\", port: 8080, authTokens: [\"" + TOKEN + "\"]");
    SupervisorConfig next =
        config(
            "{a: {command: x, toolPrefix: aa}, c: {command: z}}",
            "host: \"127.0.0.1\", port: 9090, authTokens: [\"" + TOKEN.replace('t', 'u') + "\"]");

    List<String> named = LiveChanges.needingRestart(running, next);

    assertEquals(
        List.of(
            "servers added (c)",
            "servers removed (b)",
            "servers.a.toolPrefix",
            "gateway.port",
            "gateway.authTokens"),
        named);
    assertEquals(false, String.join(" ", named).contains(TOKEN));
  }

  private static SupervisorConfig config(String servers, String gateway) {
    return ConfigLoader.parse(
        "mcpServers: " + servers + "\ngateway: {" + gateway + "}", "live-changes test");
  }
}
