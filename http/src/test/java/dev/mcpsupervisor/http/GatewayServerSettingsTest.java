package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GatewayServerSettingsTest {

  /**
   * The jar's merged reference.conf lists Pekko's {@code backlog = 100} after ours: a burst of
   * 1,000 clients overflowed that queue and hundreds of connections closed unanswered.
   */
  @Test
  void acceptBacklogWinsOverPekkosDefaultWhereverItIsMerged() {
    Config asInTheJar =
        ConfigFactory.parseString("pekko.http.server.backlog = 100")
            .withFallback(ConfigFactory.load());
    assertEquals(
        ConfigFactory.load().getInt("mcp-supervisor.http.acceptBacklog"),
        GatewayServer.serverSettings(asInTheJar, Duration.ofMinutes(2), 4096).getBacklog());
    assertTrue(
        ConfigFactory.load().getInt("mcp-supervisor.http.acceptBacklog") > 100, "above Pekko's");
  }

  @Test
  void acceptBacklogIsConfigurable() {
    Config config =
        ConfigFactory.parseString("mcp-supervisor.http.acceptBacklog = 2000")
            .withFallback(ConfigFactory.load());
    assertEquals(
        2000, GatewayServer.serverSettings(config, Duration.ofMinutes(2), 4096).getBacklog());
  }

  @Test
  void aBacklogOfZeroIsRefusedNamingTheSetting() {
    Config config =
        ConfigFactory.parseString("mcp-supervisor.http.acceptBacklog = 0")
            .withFallback(ConfigFactory.load());
    IllegalArgumentException refused =
        assertThrows(
            IllegalArgumentException.class,
            () -> GatewayServer.serverSettings(config, Duration.ofMinutes(2), 4096));
    assertTrue(refused.getMessage().contains("mcp-supervisor.http.acceptBacklog"));
  }
}
