package dev.mcpsupervisor.protocol.config;

/** Whether contexts share a server key's pooled upstream sessions or each get their own. */
public enum Isolation {
  /** Contexts share pooled, refcounted sessions (what MCP client apps do with one config). */
  SHARED,
  /** Every context gets its own upstream session, for servers that keep per-client state. */
  CONTEXT;

  public String configName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
