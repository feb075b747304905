package dev.mcpsupervisor.actors.base;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The passivation handshake of an actor that others tell directly from any thread: every sender
 * counts a message through the gate before it tells the actor ({@link #pass}); the actor counts
 * what it processed ({@link #processed}). A closed gate lets no new message through (the sender
 * takes another way), and the count of what passed is final then, so the actor stops only once it
 * has processed every message that passed ({@link #drained}): nothing sent to it is ever lost to
 * its stop. An idle actor closes the gate only if nothing is on its way ({@link #closeIfIdle},
 * {@link #closeAt}), so an idle stop never races a message. (Cluster Sharding's passivation, where
 * a shard buffers instead, solves the same race.) The gateway's downstream sessions and the key
 * actors use it.
 *
 * <p>{@link #pass} and {@link #closeAt} are thread-safe; {@link #processed} and what reads its
 * count belong to the actor alone.
 */
public class MailboxGate {

  private static final long CLOSED = 1L << 62;

  // a field with a VarHandle, not an AtomicLong: one object less per gate (24 bytes)
  private static final VarHandle PASSED;

  static {
    try {
      PASSED = MethodHandles.lookup().findVarHandle(MailboxGate.class, "passed", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** How many messages passed, with {@link #CLOSED} set once closed. */
  private volatile long passed;

  /** How many of them the actor processed. */
  private long processed;

  /** Counts a message about to be told to the actor; false once the gate is closed. */
  public boolean pass() {
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

  /**
   * Counts a message about to be told to the actor even when the gate is closed: the actor's owner
   * still reaches an actor that is stopping (a cancel of a call it drains).
   */
  public void count() {
    PASSED.getAndAdd(this, 1L);
  }

  /** The actor processed a message that passed. */
  public void processed() {
    processed++;
  }

  /** How many messages that passed the actor processed. */
  public long processedCount() {
    return processed;
  }

  /** Closes the gate if every message that passed was processed; whether it closed now. */
  public boolean closeIfIdle() {
    return closeAt(processed);
  }

  /**
   * Closes the gate if exactly {@code processed} messages passed (the count the actor reported idle
   * with: none is on its way); whether it closed now.
   */
  public boolean closeAt(long processed) {
    return PASSED.compareAndSet(this, processed, processed | CLOSED);
  }

  /** Closes the gate: the actor ends. */
  public void close() {
    PASSED.getAndBitwiseOr(this, CLOSED);
  }

  public boolean closed() {
    return (passed & CLOSED) != 0;
  }

  /** Whether the gate is closed and every message that passed it was processed. */
  public boolean drained() {
    long now = passed;
    return (now & CLOSED) != 0 && (now & ~CLOSED) == processed;
  }
}
