package dev.mcpsupervisor.actors.delivery;

/**
 * Who makes a call, as its routing sees it: whether the caller's context leases the server's
 * session, and whether the caller speaks MCP 2026-07-28. One value where there were two flags, so
 * that no code reads one without the other.
 */
public enum CallerKind {
  /** A session-era caller whose context takes (or uses) a lease: the default. */
  LEASED(false, false),
  /**
   * A session-era caller with no lifetime of its own: the key actor serves it on a pooled session
   * (a session of its own under {@code isolation: context}, released with the answer) and the
   * context keeps nothing; a context that holds a lease on the server still calls on its session.
   */
  LEASELESS(true, false),
  /**
   * A 2026-07-28 request: leaseless, and a server that speaks both eras serves it in that era (over
   * HTTP with {@code protocol: auto}), so the caller gets the server's own rounds and refusals.
   */
  STATELESS(true, true),
  /**
   * A 2026-07-28 request in its caller's identity context, which holds the leases (the gateway's
   * calls to an {@code isolation: context} server). Its calls keep that context: it lives while one
   * is in flight and for {@code gateway.sessionIdleTimeout} after the last one ends, then its
   * leases are released (the router's {@code KeptContexts}).
   */
  STATELESS_IN_CONTEXT(false, true);

  private final boolean leaseless;
  private final boolean stateless;

  CallerKind(boolean leaseless, boolean stateless) {
    this.leaseless = leaseless;
    this.stateless = stateless;
  }

  /** The call holds no lease. */
  public boolean leaseless() {
    return leaseless;
  }

  /** The caller speaks MCP 2026-07-28. */
  public boolean stateless() {
    return stateless;
  }

  /** The same caller, holding no lease. */
  public CallerKind withoutLease() {
    return stateless ? STATELESS : LEASELESS;
  }

  /** The same caller, speaking MCP 2026-07-28. */
  public CallerKind speakingStateless() {
    return leaseless ? STATELESS : STATELESS_IN_CONTEXT;
  }
}
