package dev.mcpsupervisor.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mcpsupervisor.actors.base.SupervisorSnapshot.KeySnapshot;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.SessionSnapshot;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

class ServerHealthIndicatorTest {

  @Test
  void anOpenCircuitIsDownOnlyForARequiredServer() {
    List<KeySnapshot> open = List.of(key("open", session("closed", 3)));
    assertEquals(Status.DOWN, ServerHealthIndicator.health(open, true).getStatus());
    assertEquals(Status.UNKNOWN, ServerHealthIndicator.health(open, false).getStatus());
  }

  @Test
  void aReadySessionIsUpWithItsCircuitSessionsAndRestartsInTheDetails() {
    Health health =
        ServerHealthIndicator.health(
            List.of(key("closed", session("ready", 2), session("connecting", 0))), true);
    assertEquals(Status.UP, health.getStatus());
    assertEquals(
        Map.of(
            "circuit", "closed", "sessions", Map.of("connecting", 1L, "ready", 1L), "restarts", 2),
        health.getDetails().get("fixture#1"));
  }

  @Test
  void aServerNotStartedYetIsUnknownEvenWhenRequired() {
    Health health = ServerHealthIndicator.health(List.of(), true);
    assertEquals(Status.UNKNOWN, health.getStatus());
    assertEquals("not started", health.getDetails().get("state"));
  }

  private static KeySnapshot key(String circuit, SessionSnapshot... sessions) {
    return new KeySnapshot(
        "fixture",
        "fixture#1",
        "stdio",
        "2025",
        List.of(sessions),
        Map.of(),
        circuit,
        0,
        List.of());
  }

  private static SessionSnapshot session(String state, int restarts) {
    return new SessionSnapshot(
        1, state, 0, 0, 0, 0, restarts, "", Instant.EPOCH, null, OptionalLong.empty());
  }
}
