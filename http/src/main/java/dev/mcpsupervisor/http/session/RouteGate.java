package dev.mcpsupervisor.http.session;

import dev.mcpsupervisor.actors.base.MailboxGate;

/**
 * The passivation handshake between the HTTP routes, which tell a {@link DownstreamSession}
 * directly from any thread ({@link SessionDirectory}), and that session: the routes count each
 * message through the gate before they tell it; the session counts what it processed. A closed gate
 * lets nothing through (the routes answer 404 themselves), and the session knows the final count,
 * so it stops only once it has answered every message that passed: nothing routed to it is ever
 * lost, and nothing waits on a session that stopped. An idle session (no activity for its idle
 * timeout) closes the gate only if nothing is on its way, so an idle end never races a request.
 *
 * <p>{@link #pass} is the routes' side, thread-safe; the rest is the session actor's alone. The
 * handshake is the supervisor's {@link MailboxGate}; this adds the session's idle time.
 */
final class RouteGate extends MailboxGate {

  /** When the session was last active ({@link System#nanoTime}). */
  private long activeAt = System.nanoTime();

  /** The session processed a message that passed, and it is activity: the idle time restarts. */
  void processedActivity() {
    processed();
    active();
  }

  /** The session was active (answered a request): the idle time restarts. */
  void active() {
    activeAt = System.nanoTime();
  }

  /** Whether the session was last active at least {@code idleTimeout} ago. */
  boolean idleFor(java.time.Duration idleTimeout) {
    return System.nanoTime() - activeAt >= idleTimeout.toNanos();
  }
}
