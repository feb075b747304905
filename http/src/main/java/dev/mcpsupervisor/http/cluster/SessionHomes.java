package dev.mcpsupervisor.http.cluster;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The node a {@link NodeDesk} last passed a request of each session to with the session's record
 * (its home, or the adopter, which becomes it), for the sessions whose ids no longer place them
 * (adopted ones): their next requests go straight there ({@link SessionRoutes#of}). Bounded: the
 * sessions least recently asked for are forgotten first, and a forgotten one is looked up again.
 * Plain state of one desk, read and written in its mailbox.
 */
final class SessionHomes {

  /** More than the sessions a node serves at once; each entry is two short strings. */
  static final int BOUND = 16_384;

  private final Map<String, String> homes;

  SessionHomes() {
    this(BOUND);
  }

  SessionHomes(int bound) {
    this.homes =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > bound;
          }
        };
  }

  /** The node {@code sessionId}'s requests went to last, or null. */
  String of(String sessionId) {
    return homes.get(sessionId);
  }

  /** A request of {@code sessionId} went to {@code home} with the session's record. */
  void found(String sessionId, String home) {
    homes.put(sessionId, home);
  }

  /** The session has no record any more. */
  void forget(String sessionId) {
    homes.remove(sessionId);
  }
}
