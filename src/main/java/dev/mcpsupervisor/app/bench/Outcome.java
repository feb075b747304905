package dev.mcpsupervisor.app.bench;

/** How one call ended. */
public enum Outcome {
  /** Answered with this call's own payload. */
  OK,
  /** No usable answer: HTTP error, JSON-RPC error, tool error, timeout, unreadable body. */
  FAILED,
  /** A result carrying another call's payload or another request id: an answer to someone else. */
  WRONG
}
