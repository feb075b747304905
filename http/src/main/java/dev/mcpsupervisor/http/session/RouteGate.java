package dev.mcpsupervisor.http.session;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The passivation handshake between the HTTP routes, which tell a {@link DownstreamSession}
 * directly from any thread ({@link SessionDirectory}), and that session: the routes count each
 * message through the gate before they tell it; the session counts what it processed. A closed gate
 * lets nothing through (the routes answer 404 themselves), and the session knows the final count,
 * so it stops only once it has answered every message that passed: nothing routed to it is ever
 * lost, and nothing waits on a session that stopped. An idle session (no activity for its idle
 * timeout) closes the gate only if nothing is on its way, so an idle end never races a request.
 *
 * <p>{@link #pass} is the routes' side, thread-safe; the rest is the session actor's alone.
 */
final class RouteGate {

  private static final long CLOSED = 1L << 62;

  // a field with a VarHandle, not an AtomicLong: one object less per session (24 bytes)
  private static final VarHandle PASSED;

  static {
    try {
      PASSED = MethodHandles.lookup().findVarHandle(RouteGate.class, "passed", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** How many messages passed, with {@link #CLOSED} set once closed. */
  private volatile long passed;

  /** How many of them the session processed. */
  private long processed;

  /** When the session was last active ({@link System#nanoTime}). */
  private long activeAt = System.nanoTime();

  /** Counts a message about to be told to the session; false once the gate is closed. */
  boolean pass() {
    while (true) {
      long now = passed;
      if ((now & CLOSED) != 0) {
        return false;
      }
      if (PASSED.compareAndSet(this, now, now + 1)) {
        return true;
      }
    }
  }

  /** The session processed a message that passed. */
  void processed() {
    processed++;
  }

  /** The session processed a message that passed, and it is activity: the idle time restarts. */
  void processedActivity() {
    processed++;
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

  /** Closes the gate if every message that passed was processed; whether it closed now. */
  boolean closeIfIdle() {
    return PASSED.compareAndSet(this, processed, processed | CLOSED);
  }

  /** Closes the gate: the session ends. */
  void close() {
    PASSED.getAndBitwiseOr(this, CLOSED);
  }

  boolean closed() {
    return (passed & CLOSED) != 0;
  }

  /** Whether the gate is closed and every message that passed it was processed. */
  boolean drained() {
    long now = passed;
    return (now & CLOSED) != 0 && (now & ~CLOSED) == processed;
  }
}
