package dev.mcpsupervisor.actors.key;

import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.protocol.UpstreamDiagnostics;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;

/**
 * A server key's circuit: closed → (too many consecutive failed attempts) open → (cooldown)
 * half-open, where one probe session may be opened → closed once a session is ready. The key actor
 * owns the timers and the sessions.
 */
final class CircuitBreaker {

  enum State {
    CLOSED("closed"),
    OPEN("open"),
    HALF_OPEN("half-open");

    final String word;

    State(String word) {
      this.word = word;
    }
  }

  private final String server;
  private final int maxFailures;
  private State state = State.CLOSED;
  private int consecutiveFailures;
  private String lastFailure = "";
  private UpstreamDiagnostics.Incident lastIncident;

  CircuitBreaker(String server, int maxFailures) {
    this.server = server;
    this.maxFailures = maxFailures;
  }

  State state() {
    return state;
  }

  int consecutiveFailures() {
    return consecutiveFailures;
  }

  /**
   * Whether a new session may be opened. Closed: yes. Half-open: one probe at a time, so only while
   * no other session is still trying ({@code noneStarting}). Open: no.
   */
  boolean mayOpenSession(boolean noneStarting) {
    return switch (state) {
      case CLOSED -> true;
      case HALF_OPEN -> noneStarting;
      case OPEN -> false;
    };
  }

  /** The reason of the last failed attempt (for the log); empty if none failed yet. */
  String lastFailure() {
    return lastFailure;
  }

  /**
   * Why a call cannot be served while the circuit forbids a session: the last failure, under one
   * ref however many calls are refused.
   */
  JsonRpcError unavailable() {
    return lastIncident == null
        ? SupervisorErrors.unavailableBecause(
            server, "circuit " + state.word + ", a probe is under way")
        : SupervisorErrors.unavailable(lastIncident);
  }

  /** Nothing to remember: closed and no failure counted. */
  boolean isQuiet() {
    return state == State.CLOSED && consecutiveFailures == 0;
  }

  /** Counts a failed attempt; answers whether the circuit must open now. */
  boolean attemptFailed(String reason) {
    consecutiveFailures++;
    lastFailure = reason;
    lastIncident = UpstreamDiagnostics.incident(server, reason);
    return state == State.HALF_OPEN || consecutiveFailures >= maxFailures;
  }

  /** Answers whether it was not open already. */
  boolean open() {
    boolean opened = state != State.OPEN;
    state = State.OPEN;
    return opened;
  }

  void halfOpen() {
    state = State.HALF_OPEN;
  }

  /** Closes it with the failures forgotten; answers whether it was not closed. */
  boolean close() {
    boolean closed = state != State.CLOSED;
    state = State.CLOSED;
    consecutiveFailures = 0;
    return closed;
  }
}
