package dev.mcpsupervisor.http.session;

import dev.mcpsupervisor.http.access.Identity;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The directory of downstream sessions: session id → {@link RoutedSession}. {@link
 * DownstreamSessions} is its single writer; the HTTP routes read it to tell a session directly,
 * without a hop through the registry actor. An id that is not routable (never issued, deleted,
 * expired, ending), belongs to another endpoint or was created by another {@link Identity} is
 * unknown: its routed command is answered {@link DownstreamSession.Routed#whenGone} at once.
 */
public final class SessionDirectory {

  private final ConcurrentHashMap<String, RoutedSession> routable = new ConcurrentHashMap<>();

  /**
   * Tells the session {@code id} the command, if a request on {@code path} from {@code caller}
   * reaches it; otherwise a routed command's exchange hears that the session is gone (other
   * commands are dropped: they concern a session that is gone).
   */
  public void tell(String id, String path, Identity caller, DownstreamSession.Command command) {
    tell(routable.get(id), path, caller, command);
  }

  /**
   * Tells {@code session}, as looked up (null: none), the command: a session that ended since is no
   * longer reached.
   */
  static void tell(
      RoutedSession session, String path, Identity caller, DownstreamSession.Command command) {
    if (session != null && session.reachableBy(path, caller) && session.deliver(command)) {
      return;
    }
    if (command instanceof DownstreamSession.Routed routed) {
      routed.exchange().tell(routed.whenGone());
    }
  }

  /** Whether this node serves the session {@code id} (to whomever it belongs). */
  public boolean holds(String id) {
    return routable.containsKey(id);
  }

  /** The ids of the sessions this node serves now. */
  public List<String> ids() {
    return List.copyOf(routable.keySet());
  }

  // The registry's side.

  void add(RoutedSession session) {
    routable.put(session.id, session);
  }

  RoutedSession get(String id) {
    return routable.get(id);
  }

  /** Whether it was routable. */
  boolean remove(String id) {
    return routable.remove(id) != null;
  }

  int size() {
    return routable.size();
  }

  Collection<RoutedSession> all() {
    return routable.values();
  }
}
