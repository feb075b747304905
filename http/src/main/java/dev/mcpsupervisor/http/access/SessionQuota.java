package dev.mcpsupervisor.http.access;

import java.util.HashMap;
import java.util.Map;

/**
 * How many downstream sessions are alive, in all and per caller identity, against {@code
 * gateway.maxDownstreamSessions} and {@code maxDownstreamSessionsPerIdentity}: a session counts
 * from its start until its actor has stopped (an ending session still holds its state and leases).
 * Plain bookkeeping on the registry's thread.
 */
public final class SessionQuota {

  private final int max;
  private final int maxPerIdentity;

  /** The identity of each counted session ("" when it has none). */
  private final Map<String, String> identityOf = new HashMap<>();

  private final Map<String, Integer> perIdentity = new HashMap<>();

  public SessionQuota(int max, int maxPerIdentity) {
    this.max = max;
    this.maxPerIdentity = maxPerIdentity;
  }

  /**
   * Whose sessions (and requests) a new one counts among: its caller context (the identity and the
   * agent id it named, {@link CallerIdentity}), else its authenticated owner, else nobody's (null).
   */
  public static String callerOf(Identity owner, String context) {
    if (context != null) {
      return context;
    }
    return owner != null && !owner.isAnonymous() ? owner.key() : null;
  }

  /** Why a new session of {@code identity} (null: none) may not start now, or null when it may. */
  public String refusal(String identity) {
    if (identityOf.size() >= max) {
      return "the gateway has " + max + " sessions, its maxDownstreamSessions";
    }
    if (identity != null && perIdentity.getOrDefault(identity, 0) >= maxPerIdentity) {
      return "this caller has "
          + maxPerIdentity
          + " sessions, the gateway's maxDownstreamSessionsPerIdentity";
    }
    return null;
  }

  public void started(String sessionId, String identity) {
    identityOf.put(sessionId, identity == null ? "" : identity);
    if (identity != null) {
      perIdentity.merge(identity, 1, Integer::sum);
    }
  }

  /** The session's actor stopped; a session not counted is ignored. */
  public void stopped(String sessionId) {
    String identity = identityOf.remove(sessionId);
    if (identity != null && !identity.isEmpty()) {
      perIdentity.computeIfPresent(identity, (key, count) -> count > 1 ? count - 1 : null);
    }
  }

  int size() {
    return identityOf.size();
  }
}
