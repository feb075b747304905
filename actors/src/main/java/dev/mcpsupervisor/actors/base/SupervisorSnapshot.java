package dev.mcpsupervisor.actors.base;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A point-in-time view of every server key, for admin pages, metrics and tests. Immutable; no
 * secrets.
 */
public record SupervisorSnapshot(List<KeySnapshot> keys) {

  public SupervisorSnapshot {
    keys = List.copyOf(keys);
  }

  /** The process id of every session that has one (a stdio server's running process). */
  public List<Long> processIds() {
    return keys.stream()
        .flatMap(key -> key.sessions().stream())
        .flatMap(session -> session.pid().stream().boxed())
        .toList();
  }

  /**
   * @param keyId the server key's id (name and short digest)
   * @param transport as configured: {@code stdio}, {@code streamable-http} or {@code sse}
   * @param protocol the era the key speaks to its server: {@code auto} (2026-07-28 first over
   *     HTTP), {@code auto, session era first} (an {@code auto} HTTP server's key for session-era
   *     callers; its 2026-07-28 callers have the other), {@code 2025} or {@code 2026-07-28}
   * @param leases context → id of the session serving it
   * @param circuit "closed", "open" or "half-open"
   * @param listWaiters callers waiting for a list page the key fetches once for all of them
   * @param interactiveTools the server's tools that send server requests of their own (sampling,
   *     elicitation): declared in its config ({@code interactiveTools}) or learned from a call;
   *     sorted
   */
  public record KeySnapshot(
      String server,
      String keyId,
      String transport,
      String protocol,
      List<SessionSnapshot> sessions,
      Map<String, Long> leases,
      String circuit,
      int listWaiters,
      List<String> interactiveTools) {
    public KeySnapshot {
      sessions = List.copyOf(sessions);
      leases = Map.copyOf(leases);
      interactiveTools = List.copyOf(interactiveTools);
    }
  }

  /**
   * @param sessionId monotonic per key, never recycled
   * @param state connecting, initializing, ready, restarting or closed
   * @param refCount contexts holding a lease on it
   * @param inFlight requests sent upstream and not yet answered (the pending map's size)
   * @param stashed requests waiting for the session to be ready
   * @param awaitingAnswers server-to-client requests (sampling, elicitation, roots) the upstream
   *     sent that wait for a caller's answer
   * @param restarts how often the connection was re-established
   * @param lastLoss why the connection was last lost; empty if it never was
   * @param startedAt when the session was opened
   * @param connectedAt since when its current connection is up (a stdio server's process runs);
   *     null while it has none
   */
  public record SessionSnapshot(
      long sessionId,
      String state,
      int refCount,
      int inFlight,
      int stashed,
      int awaitingAnswers,
      int restarts,
      String lastLoss,
      Instant startedAt,
      Instant connectedAt,
      OptionalLong pid) {}
}
