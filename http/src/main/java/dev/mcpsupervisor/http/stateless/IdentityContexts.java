package dev.mcpsupervisor.http.stateless;

import dev.mcpsupervisor.http.access.CallerIdentity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The callers' identity contexts ({@link CallerIdentity}) and how many 2026-07-28 requests use each
 * now: every request of that caller to an endpoint with an {@code isolation: context} server enters
 * it and leaves it once answered. A context nobody used for the idle timeout is released in the
 * supervisor (its leases, and with them its {@code isolation: context} upstream sessions); a
 * request for a context whose release is under way waits until it is done, so no lease it takes is
 * released under it. Plain class of {@link CallerContexts}, which runs the timers and the releases.
 *
 * @param <W> what waits for a release: the request to enter
 */
public final class IdentityContexts<W> {

  enum Entered {
    /** The context is new. */
    FIRST,
    /** The context is in use or idle: its idle time (if it runs) stops. */
    AGAIN,
    /** The context is being released: the waiter comes back from {@link #released}. */
    WAIT
  }

  private static final class Context<W> {
    int users;
    boolean releasing;
    final List<W> waiting = new ArrayList<>();
  }

  private final Map<String, Context<W>> contexts = new HashMap<>();

  /** A request of this context's caller is to run. */
  Entered enter(String context, W waiter) {
    Context<W> entry = contexts.get(context);
    if (entry == null) {
      entry = new Context<>();
      entry.users = 1;
      contexts.put(context, entry);
      return Entered.FIRST;
    }
    if (entry.releasing) {
      entry.waiting.add(waiter);
      return Entered.WAIT;
    }
    entry.users++;
    return Entered.AGAIN;
  }

  /**
   * A request that entered is done; true when it was the last one in its context (the context's
   * idle time starts).
   */
  boolean left(String context) {
    Context<W> entry = contexts.get(context);
    if (entry == null || entry.users == 0 || entry.releasing) {
      return false;
    }
    entry.users--;
    return entry.users == 0;
  }

  /** The context's idle time is over; true when it is to be released now (still unused). */
  boolean idle(String context) {
    Context<W> entry = contexts.get(context);
    if (entry == null || entry.users > 0 || entry.releasing) {
      return false;
    }
    entry.releasing = true;
    return true;
  }

  /** The gateway stops: every context not being released already is to be released now. */
  List<String> releaseAll() {
    List<String> toRelease = new ArrayList<>();
    contexts.forEach(
        (context, entry) -> {
          if (!entry.releasing) {
            entry.releasing = true;
            toRelease.add(context);
          }
        });
    return toRelease;
  }

  /**
   * The context's release is done and it is forgotten; answers what waited for it, to be started
   * again (the first of them enters a new context).
   */
  List<W> released(String context) {
    Context<W> entry = contexts.remove(context);
    return entry == null ? List.of() : List.copyOf(entry.waiting);
  }

  boolean isEmpty() {
    return contexts.isEmpty();
  }
}
