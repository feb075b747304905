package dev.mcpsupervisor.actors.key;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.McpMethods;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where a server key's interactive calls run — calls of tools that send their client requests of
 * their own (sampling, elicitation) — so that the owner of a request that names no call (a stdio
 * server's) is never in doubt: an interactive call goes to a session where no interactive call of
 * another owner is in flight, else to a new session while there may be more, else it waits, in
 * order of arrival. Plain calls are none of its business.
 *
 * <p>A tool is interactive when the server's config declares it ({@code interactiveTools}) or once
 * one of its calls sent a server request (the session reports it). An owner is whoever one server
 * request goes to: a call with a delivery of its own (a round-trip call), else its context.
 *
 * <p>Decisions only, no mailbox: the key actor asks, opens sessions, forwards, and tells what
 * ended.
 *
 * @param <C> a waiting call (the upstream call; anything in tests)
 */
final class InteractiveCalls<C> {

  /**
   * Where a waiting call goes now: {@code sessionId}, or a new session when it is {@link #OPEN}.
   */
  record Placement<C>(long callId, C call, String owner, long sessionId, long waitedNanos) {
    boolean opensSession() {
      return sessionId == OPEN;
    }
  }

  /** A placement on a session yet to be opened. */
  static final long OPEN = -1;

  private record Waiting<C>(C call, String owner, long sinceNanos) {}

  private record Running(String owner, long sessionId) {}

  private final Set<String> tools;

  /** By call id, in order of arrival. */
  private final Map<Long, Waiting<C>> waiting = new LinkedHashMap<>();

  private final Map<Long, Running> running = new HashMap<>();

  /** Per session, the interactive calls in flight of each owner. */
  private final Map<Long, Map<String, Integer>> ownersBySession = new HashMap<>();

  /**
   * @param declared the tools the server's config declares interactive
   */
  InteractiveCalls(Collection<String> declared) {
    this.tools = new HashSet<>(declared);
  }

  /** Whether a call of this method with these params is a call of an interactive tool. */
  boolean isInteractive(String method, JsonNode params) {
    if (tools.isEmpty() || !McpMethods.TOOLS_CALL.equals(method) || params == null) {
      return false;
    }
    JsonNode name = params.get("name");
    return name != null && name.isTextual() && tools.contains(name.textValue());
  }

  /** The interactive tools, declared or learned, sorted. */
  List<String> tools() {
    return tools.stream().sorted().toList();
  }

  /** A call of the tool sent a server request: answers whether that is news. */
  boolean mark(String tool) {
    return tools.add(tool);
  }

  /** The owner of a call: the call itself when it has its own delivery, else its context. */
  static String owner(long callId, String context, boolean ownDelivery) {
    return ownDelivery ? "call " + callId : "context " + context;
  }

  /** The call waits for a session; {@link #next} places it. */
  void arrived(long callId, C call, String owner, long nowNanos) {
    waiting.put(callId, new Waiting<>(call, owner, nowNanos));
  }

  int waiting() {
    return waiting.size();
  }

  /**
   * The first waiting call that may run now, and where, taken out of the queue (and counted as
   * running there, unless it opens a session: then {@link #running} says which); null when none
   * may.
   *
   * @param leased the session the call's context holds a lease on, tried first; null if none
   * @param sessions the live sessions, most preferred first
   * @param mayOpen whether another session may be opened
   */
  Placement<C> next(
      java.util.function.Function<C, Long> leased,
      List<Long> sessions,
      boolean mayOpen,
      long nowNanos) {
    for (Iterator<Map.Entry<Long, Waiting<C>>> it = waiting.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Long, Waiting<C>> entry = it.next();
      Waiting<C> call = entry.getValue();
      long sessionId = placeFor(call.owner(), leased.apply(call.call()), sessions, mayOpen);
      if (sessionId != NONE) {
        it.remove();
        if (sessionId != OPEN) {
          running(entry.getKey(), call.owner(), sessionId);
        }
        return new Placement<>(
            entry.getKey(), call.call(), call.owner(), sessionId, nowNanos - call.sinceNanos());
      }
    }
    return null;
  }

  private static final long NONE = -2;

  private long placeFor(String owner, Long leased, List<Long> sessions, boolean mayOpen) {
    if (leased != null && sessions.contains(leased) && isFreeFor(leased, owner)) {
      return leased;
    }
    for (long session : sessions) {
      if (isFreeFor(session, owner)) {
        return session;
      }
    }
    return mayOpen ? OPEN : NONE;
  }

  /** No interactive call of another owner is in flight on the session. */
  private boolean isFreeFor(long sessionId, String owner) {
    Map<String, Integer> owners = ownersBySession.get(sessionId);
    return owners == null || owners.isEmpty() || (owners.size() == 1 && owners.containsKey(owner));
  }

  /** The call runs on the session (placed there, or on the session opened for it). */
  void running(long callId, String owner, long sessionId) {
    running.put(callId, new Running(owner, sessionId));
    ownersBySession.computeIfAbsent(sessionId, id -> new HashMap<>()).merge(owner, 1, Integer::sum);
  }

  /** The session a running call runs on, or null. */
  Long sessionOf(long callId) {
    Running call = running.get(callId);
    return call == null ? null : call.sessionId();
  }

  /** The call is answered (or was never admitted): its session is free of it. */
  void ended(long callId) {
    Running call = running.remove(callId);
    if (call == null) {
      return;
    }
    Map<String, Integer> owners = ownersBySession.get(call.sessionId());
    if (owners != null && owners.merge(call.owner(), -1, Integer::sum) <= 0) {
      owners.remove(call.owner());
      if (owners.isEmpty()) {
        ownersBySession.remove(call.sessionId());
      }
    }
  }

  /** The session left the table: nothing runs there any more (it answers its calls itself). */
  void sessionGone(long sessionId) {
    ownersBySession.remove(sessionId);
    running.values().removeIf(call -> call.sessionId() == sessionId);
  }

  /** A waiting call given up (its deadline, its caller's cancel): the call, or null. */
  C withdraw(long callId) {
    Waiting<C> call = waiting.remove(callId);
    return call == null ? null : call.call();
  }

  /** Every waiting call, in order, taken out (the key shuts down). */
  List<C> drain() {
    List<C> calls = new ArrayList<>();
    waiting.values().forEach(call -> calls.add(call.call()));
    waiting.clear();
    return calls;
  }

  /** How many interactive calls are in flight on the session. */
  int runningOn(long sessionId) {
    Map<String, Integer> owners = ownersBySession.get(sessionId);
    return owners == null ? 0 : owners.values().stream().mapToInt(Integer::intValue).sum();
  }
}
