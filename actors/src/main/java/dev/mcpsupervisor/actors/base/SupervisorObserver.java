package dev.mcpsupervisor.actors.base;

/**
 * Lifecycle events for metrics, counted by whoever embeds the supervisor (the gateway feeds
 * Prometheus from it). Called from actor threads: implementations must be cheap and non-blocking.
 * Every method has a no-op default.
 */
public interface SupervisorObserver {

  SupervisorObserver NONE = new SupervisorObserver() {};

  /** A lease was served by an existing session (a pool hit: no initialize round trip). */
  default void sessionReused(String server) {}

  /**
   * A session or a circuit changed ({@link SupervisionEvent.Kind}): counted, and listed on the
   * operations page.
   */
  default void supervision(SupervisionEvent event) {}

  /**
   * A request was answered; {@code errorKind} is null on success, else e.g. "timeout",
   * "session_lost".
   */
  default void requestCompleted(String server, String method, long nanos, String errorKind) {}

  /**
   * {@code server} said a list of its changed ({@code notification}, e.g. {@code
   * notifications/tools/list_changed}): the supervisor's cached lists of that kind are gone, and so
   * must be whatever was learnt from them.
   */
  default void listChanged(String server, String notification) {}
}
