package dev.mcpsupervisor.actors.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigChangeTest {

  @Test
  void serversAreComparedByNameThenByTheirWholeConfiguration() {
    SupervisorConfig before =
        config(
            server("keep", "a"), server("args", "a"), server("limits", "a"), server("gone", "a"));
    SupervisorConfig after =
        config(
            server("keep", "a"),
            server("args", "b"),
            withMaxSessions(server("limits", "a"), 7),
            server("new", "a"));

    ConfigChange change = ConfigChange.between(before, after);

    assertEquals(List.of("new"), change.added());
    assertEquals(List.of("gone"), change.removed());
    assertEquals(List.of("args", "limits"), change.changed());
    assertEquals(List.of("keep"), change.unchanged());
    assertEquals(List.of("gone", "args", "limits"), change.retired());
    assertTrue(change.listsMayChange());
  }

  @Test
  void theSameConfigurationChangesNothing() {
    SupervisorConfig config = config(server("a", "x"), server("b", "y"));

    ConfigChange change = ConfigChange.between(config, config(server("a", "x"), server("b", "y")));

    assertEquals(List.of("a", "b"), change.unchanged());
    assertTrue(change.retired().isEmpty());
    assertFalse(change.listsMayChange());
  }

  private static ServerConfig server(String name, String arg) {
    return ServerConfig.builder(name, new ServerSpec.Stdio("node", List.of(arg), Map.of(), null))
        .isolation(Isolation.SHARED)
        .maxSessions(1)
        .maxInflightPerSession(10)
        .requestTimeout(Duration.ofSeconds(30))
        .idleTimeout(Duration.ofMinutes(5))
        .build();
  }

  private static ServerConfig withMaxSessions(ServerConfig server, int maxSessions) {
    return server.toBuilder().maxSessions(maxSessions).build();
  }

  private static SupervisorConfig config(ServerConfig... servers) {
    Map<String, ServerConfig> byName = new LinkedHashMap<>();
    for (ServerConfig server : servers) {
      byName.put(server.name(), server);
    }
    return new SupervisorConfig(byName, null);
  }
}
