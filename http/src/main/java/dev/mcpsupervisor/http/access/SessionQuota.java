package dev.mcpsupervisor.http.access;

import java.util.HashMap;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * How many downstream sessions are alive, in all and per caller identity, against {@code
 * gateway.maxDownstreamSessions} and {@code maxDownstreamSessionsPerIdentity}: a session counts
 * from its start until its actor has stopped (an ending session still holds its state and leases).
 * Plain bookkeeping on the registry's thread.
 */
public final class SessionQuota {

  /** The limits in force: read at each new session. */
  private final IntSupplier max;

  private final IntSupplier maxPerIdentity;

  /** The identity of each counted session ("" when it has none). */
  private final Map<String, String> identityOf = new HashMap<>();

  private final Map<String, Integer> perIdentity = new HashMap<>();

  public SessionQuota(IntSupplier max, IntSupplier maxPerIdentity) {
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
    int most = max.getAsInt();
    if (identityOf.size() >= most) {
      return "the gateway has " + most + " sessions, its maxDownstreamSessions";
    }
    int mostPerIdentity = maxPerIdentity.getAsInt();
    if (identity != null && perIdentity.getOrDefault(identity, 0) >= mostPerIdentity) {
      return "this caller has "
          + mostPerIdentity
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
