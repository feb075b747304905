package dev.mcpsupervisor.actors;

import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;

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
   * For a call the closing session still holds: "shutting down", "unavailable" or "session lost"
   * (retryable).
   */
  JsonRpcError callError(String server, String method, String detail) {
    return switch (this) {
      case SHUTDOWN -> SupervisorErrors.shuttingDown();
      case CIRCUIT_OPEN, CONNECT_FAILED -> SupervisorErrors.unavailable(server, detail);
      default -> SupervisorErrors.sessionLost(server, method, word);
    };
  }

  /** For an acquire still waiting for the closing session to be ready. */
  JsonRpcError acquireError(String server, long sessionId) {
    return this == SHUTDOWN
        ? SupervisorErrors.shuttingDown()
        : SupervisorErrors.unavailable(server, "session " + sessionId + " closed: " + word);
  }
}
