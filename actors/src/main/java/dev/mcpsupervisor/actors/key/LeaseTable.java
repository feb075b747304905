package dev.mcpsupervisor.actors.key;

import dev.mcpsupervisor.protocol.config.Isolation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A server key's sessions and the leases of contexts on them — which session serves which context,
 * which session a new lease goes to, which sessions are closing. Decisions only, no mailbox: the
 * key actor asks, then tells its sessions. A context holds at most one lease; a session leaves the
 * table (and its contexts their leases) before it is told to close, so nothing assigned afterwards
 * can reach it.
 *
 * @param <R> how a session is reached (its actor; anything in tests)
 * @param <L> how a leased context with a listener is reached (its delivery actor)
 */
final class LeaseTable<R, L> {

  /** One session in the table. */
  static final class Entry<R> {
    final long id;
    final R ref;
    final Set<String> contexts = new LinkedHashSet<>();
    final Instant openedAt = Instant.now();
    boolean ready;
    boolean saturated;

    Entry(long id, R ref) {
      this.id = id;
      this.ref = ref;
    }
  }

  private final Map<Long, Entry<R>> sessions = new LinkedHashMap<>();

  /** Told to close and not yet stopped: no longer leased, still there. */
  private final Map<Long, Entry<R>> closing = new HashMap<>();

  private final Map<String, Long> leases = new HashMap<>();

  /** The listeners of leased contexts that have one: a lease that ends takes its listener along. */
  private final Map<String, L> listeners = new HashMap<>();

  /** The session the context holds a lease on, or null. */
  Entry<R> sessionOf(String context) {
    Long id = leases.get(context);
    return id == null ? null : sessions.get(id);
  }

  Entry<R> get(long sessionId) {
    return sessions.get(sessionId);
  }

  /** The session became ready, or lost its connection (a session no longer here is ignored). */
  void ready(long sessionId, boolean ready) {
    Entry<R> session = sessions.get(sessionId);
    if (session != null) {
      session.ready = ready;
    }
  }

  /** The session is (or stopped being) at maxInflightPerSession: pooled() passes it over. */
  void saturated(long sessionId, boolean saturated) {
    Entry<R> session = sessions.get(sessionId);
    if (session != null) {
      session.saturated = saturated;
    }
  }

  /**
   * Shared isolation: the least-leased session that is not full; all full and below {@code
   * maxSessions}: null (open another); all full at {@code maxSessions}: the least-leased anyway
   * (its requests wait there, bounded).
   */
  Entry<R> pooled(int maxSessions) {
    Comparator<Entry<R>> byLoad =
        Comparator.comparingInt((Entry<R> s) -> s.contexts.size()).thenComparingLong(s -> s.id);
    Entry<R> leastLoaded =
        sessions.values().stream().filter(s -> !s.saturated).min(byLoad).orElse(null);
    if (leastLoaded != null || sessions.size() < maxSessions) {
      return leastLoaded;
    }
    return sessions.values().stream().min(byLoad).orElse(null);
  }

  /**
   * Whether another session may open: with context isolation one per context, so at {@code
   * maxSessions} (closing ones count: their processes are still there) a new context is refused;
   * shared isolation decides in {@link #pooled}.
   */
  boolean mayOpen(Isolation isolation, int maxSessions) {
    return isolation == Isolation.SHARED || sessions.size() + closing.size() < maxSessions;
  }

  /**
   * No session is still trying to become ready (a half-open circuit lets one probe try at a time).
   */
  boolean noneStarting() {
    return sessions.values().stream().allMatch(s -> s.ready);
  }

  Entry<R> add(long sessionId, R ref) {
    Entry<R> entry = new Entry<>(sessionId, ref);
    sessions.put(sessionId, entry);
    return entry;
  }

  void lease(String context, Entry<R> session) {
    leases.put(context, session.id);
    session.contexts.add(context);
  }

  /**
   * Gives the context's lease a listener; answers whether that changed anything (false: the lease
   * had it already, or there is no lease).
   */
  boolean listen(String context, L listener) {
    if (!leases.containsKey(context) || listener.equals(listeners.get(context))) {
      return false;
    }
    listeners.put(context, listener);
    return true;
  }

  /** The listener of the context's lease, or null. */
  L listenerOf(String context) {
    return listeners.get(context);
  }

  /**
   * Ends the context's lease; answers the session it was on (null if none, or if that session left
   * the table).
   */
  Entry<R> release(String context) {
    Long id = leases.remove(context);
    listeners.remove(context);
    Entry<R> session = id == null ? null : sessions.get(id);
    if (session != null) {
      session.contexts.remove(context);
    }
    return session;
  }

  /**
   * Takes the session out of the table (its contexts lose their leases) into closing; answers those
   * contexts.
   */
  List<String> evict(Entry<R> session) {
    sessions.remove(session.id);
    List<String> contexts = new ArrayList<>(session.contexts);
    contexts.forEach(this::endLease);
    closing.put(session.id, session);
    return contexts;
  }

  /**
   * The session stopped. One that was closing is forgotten; one that stopped without being told to
   * takes its leases along: answers the contexts that lost theirs.
   */
  List<String> stopped(long sessionId) {
    closing.remove(sessionId);
    Entry<R> session = sessions.remove(sessionId);
    if (session == null) {
      return List.of();
    }
    List<String> contexts = new ArrayList<>(session.contexts);
    contexts.forEach(this::endLease);
    return contexts;
  }

  private void endLease(String context) {
    leases.remove(context);
    listeners.remove(context);
  }

  Collection<Entry<R>> live() {
    return List.copyOf(sessions.values());
  }

  Collection<Entry<R>> closing() {
    return List.copyOf(closing.values());
  }

  Map<String, Long> leases() {
    return Map.copyOf(leases);
  }

  /** No session, none closing, no lease. */
  boolean isEmpty() {
    return sessions.isEmpty() && closing.isEmpty() && leases.isEmpty();
  }

  boolean nothingClosing() {
    return closing.isEmpty() && sessions.isEmpty();
  }
}
