package dev.mcpsupervisor.actors.session;

import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.protocol.UpstreamDiagnostics;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import java.util.function.Function;

/**
 * Why a key actor closes one of its sessions; it decides what the calls the session still holds are
 * answered.
 */
public enum CloseReason {
  IDLE("idle"),
  RELEASED("released"),
  FAILURES("failures"),
  CIRCUIT_OPEN("circuit_open"),
  CONNECT_FAILED("connect_failed"),
  SHUTDOWN("shutdown");

  private final String word;

  CloseReason(String word) {
    this.word = word;
  }

  /** The reason as metrics name it. */
  public String word() {
    return word;
  }

  /**
   * For the calls the closing session still holds: "shutting down", "unavailable" or "session lost"
   * (retryable), under the ref of one incident of the close (logged only if a call is answered).
   */
  Function<TrackedCall, JsonRpcError> callErrors(String server, String detail) {
    UpstreamDiagnostics.Incident incident =
        UpstreamDiagnostics.incident(server, word + (detail == null ? "" : ": " + detail));
    return call ->
        switch (this) {
          case SHUTDOWN -> SupervisorErrors.shuttingDown();
          case CIRCUIT_OPEN, CONNECT_FAILED -> SupervisorErrors.unavailable(incident);
          default -> SupervisorErrors.sessionLost(incident, call.method());
        };
  }

  /** For an acquire still waiting for the closing session to be ready. */
  JsonRpcError acquireError(String server, long sessionId) {
    return this == SHUTDOWN
        ? SupervisorErrors.shuttingDown()
        : SupervisorErrors.unavailableBecause(server, "session " + sessionId + " closed: " + word);
  }
}
