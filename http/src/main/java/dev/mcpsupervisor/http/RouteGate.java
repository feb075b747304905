package dev.mcpsupervisor.http;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The passivation handshake between the HTTP routes, which tell a {@link DownstreamSession}
 * directly from any thread ({@link SessionRoutes}), and that session: the routes count each message
 * through the gate before they tell it; the session counts what it processed. A closed gate lets
 * nothing through (the routes answer 404 themselves), and the session knows the final count, so it
 * stops only once it has answered every message that passed: nothing routed to it is ever lost, and
 * nothing waits on a session that stopped. An idle session closes the gate only if nothing is on
 * its way, so an idle end never races a request.
 *
 * <p>{@link #pass} is the routes' side, thread-safe; the rest is the session actor's alone.
 */
final class RouteGate {

  private static final long CLOSED = 1L << 62;

  /** How many messages passed, with {@link #CLOSED} set once closed. */
  private final AtomicLong passed = new AtomicLong();

  /** How many of them the session processed. */
  private long processed;

  /** Counts a message about to be told to the session; false once the gate is closed. */
  boolean pass() {
    while (true) {
      long now = passed.get();
      if ((now & CLOSED) != 0) {
        return false;
      }
      if (passed.compareAndSet(now, now + 1)) {
        return true;
      }
    }
  }

  /** The session processed a message that passed. */
  void processed() {
    processed++;
  }

  /** Closes the gate if every message that passed was processed; whether it closed now. */
  boolean closeIfIdle() {
    return passed.compareAndSet(processed, processed | CLOSED);
  }

  /** Closes the gate: the session ends. */
  void close() {
    passed.getAndUpdate(now -> now | CLOSED);
  }

  boolean closed() {
    return (passed.get() & CLOSED) != 0;
  }

  /** Whether the gate is closed and every message that passed it was processed. */
  boolean drained() {
    long now = passed.get();
    return (now & CLOSED) != 0 && (now & ~CLOSED) == processed;
  }
}
