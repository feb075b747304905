package dev.mcpsupervisor.springai;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.KeySnapshot;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.SessionSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * One server's health for Actuator: UP while a session of it is ready and no circuit of it is open;
 * DOWN while a circuit is open only when the server is required ({@code
 * mcp-supervisor.required-servers}), else UNKNOWN, as before its first use (servers start on first
 * use). Details: each key's circuit and its sessions' states and restarts.
 */
final class ServerHealthIndicator implements HealthIndicator {

  /** Longer than a snapshot takes on a busy supervisor, shorter than a health probe's patience. */
  private static final Duration SNAPSHOT_TIMEOUT = Duration.ofSeconds(2);

  private final SessionSupervisor supervisor;
  private final String server;
  private final boolean required;

  ServerHealthIndicator(SessionSupervisor supervisor, String server, boolean required) {
    this.supervisor = supervisor;
    this.server = server;
    this.required = required;
  }

  @Override
  public Health health() {
    try {
      List<KeySnapshot> keys =
          supervisor
              .snapshot()
              .toCompletableFuture()
              .get(SNAPSHOT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
              .keys()
              .stream()
              .filter(key -> key.server().equals(server))
              .toList();
      return health(keys, required);
    } catch (Exception e) {
      return (required ? Health.down() : Health.unknown()).withException(e).build();
    }
  }

  static Health health(List<KeySnapshot> keys, boolean required) {
    Health.Builder health;
    if (keys.stream().anyMatch(key -> key.circuit().equals("open"))) {
      health = required ? Health.down() : Health.unknown();
    } else if (keys.stream()
        .flatMap(key -> key.sessions().stream())
        .anyMatch(session -> session.state().equals("ready"))) {
      health = Health.up();
    } else {
      health = Health.unknown();
    }
    health.withDetail("required", required);
    if (keys.isEmpty()) {
      return health.withDetail("state", "not started").build();
    }
    for (KeySnapshot key : keys) {
      Map<String, Object> detail = new TreeMap<>();
      detail.put("circuit", key.circuit());
      detail.put(
          "sessions",
          key.sessions().stream()
              .collect(
                  Collectors.groupingBy(
                      SessionSnapshot::state, TreeMap::new, Collectors.counting())));
      detail.put("restarts", key.sessions().stream().mapToInt(SessionSnapshot::restarts).sum());
      health.withDetail(key.keyId(), detail);
    }
    return health.build();
  }
}
