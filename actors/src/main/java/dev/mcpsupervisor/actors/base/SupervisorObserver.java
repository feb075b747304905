package dev.mcpsupervisor.actors.base;

/**
 * Lifecycle events for metrics, counted by whoever embeds the supervisor (the gateway feeds
 * Prometheus from it). Called from actor threads: implementations must be cheap and non-blocking.
 * Every method has a no-op default.
 */
public interface SupervisorObserver {

  SupervisorObserver NONE = new SupervisorObserver() {};

  /** A new upstream session was created for a server (one connect + initialize). */
  default void sessionCreated(String server) {}

  /** A lease was served by an existing session (a pool hit: no initialize round trip). */
  default void sessionReused(String server) {}

  /** A session's connection died and is being re-established. */
  default void sessionRestarted(String server, String reason) {}

  /**
   * A session was closed for idleness or after consecutive failures. {@code reason}: "idle",
   * "failures", ...
   */
  default void sessionEvicted(String server, String reason) {}

  /**
   * A request was answered; {@code errorKind} is null on success, else e.g. "timeout",
   * "session_lost".
   */
  default void requestCompleted(String server, String method, long nanos, String errorKind) {}
}
