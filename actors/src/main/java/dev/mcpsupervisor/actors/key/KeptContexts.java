package dev.mcpsupervisor.actors.key;

import dev.mcpsupervisor.actors.delivery.CallerKind;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The contexts their calls keep ({@link CallerKind#STATELESS_IN_CONTEXT}: a 2026-07-28 caller's
 * identity context): each lives while a call of it is in flight (or an acquire is under way), and
 * for the idle timeout after the last one ends; then it is released. The {@link KeyRouter} routes
 * those calls, so a release happens in order with them: a call routed before it holds the context,
 * and a call routed after it takes a new lease (a new session) — none meets a half-released one.
 * Counts what is in flight per context; plain bookkeeping of the router, which runs the timers.
 */
final class KeptContexts {

  /** What is in flight per kept context; 0: idle, its idle time runs. */
  private final Map<String, Integer> inFlight = new HashMap<>();

  /**
   * A call (or an acquire) of the context is routed: it holds the context until it {@link #ended}.
   */
  void held(String context) {
    inFlight.merge(context, 1, Integer::sum);
  }

  /**
   * A call that held the context ended; true when it was the last one in flight: the context's idle
   * time starts. False for a context not kept (released meanwhile at a stop).
   */
  boolean ended(String context) {
    Integer held = inFlight.get(context);
    if (held == null || held == 0) {
      return false;
    }
    inFlight.put(context, held - 1);
    return held == 1;
  }

  /**
   * The context is used with no call of its own (whom it acts as is told): kept from now on if it
   * was not; true when nothing of it is in flight, so its idle time is to start (again).
   */
  boolean touched(String context) {
    return inFlight.computeIfAbsent(context, notKept -> 0) == 0;
  }

  /**
   * The context's idle time is over: true when it is to be released now (nothing came since), and
   * it is forgotten.
   */
  boolean idleOver(String context) {
    Integer held = inFlight.get(context);
    if (held == null || held > 0) {
      return false;
    }
    inFlight.remove(context);
    return true;
  }

  /** Every kept context, forgotten: all are to be released now, in use or not (a stop). */
  List<String> releaseAll() {
    List<String> all = List.copyOf(inFlight.keySet());
    inFlight.clear();
    return all;
  }
}
