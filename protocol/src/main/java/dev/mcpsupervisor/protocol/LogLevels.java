package dev.mcpsupervisor.protocol;

import java.util.List;

/**
 * MCP logging levels (RFC 5424 severities), least severe first, and the per-session filter built on
 * them. Shared by the gateway (per downstream session and per stateless request) and the embedded
 * call API (per call).
 */
public final class LogLevels {

  public static final List<String> ORDER =
      List.of("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency");

  /**
   * What a session that never sent {@code logging/setLevel} receives. Upstream sessions are shared,
   * so another client's setLevel may make an upstream more verbose; this keeps the default view the
   * same for everyone.
   */
  public static final String DEFAULT_THRESHOLD = "info";

  /** A threshold no level passes: a stateless request that asked for no logs. */
  public static final String OFF = "off";

  /**
   * Asked of every upstream on setLevel, so that each session's own filter sees everything it might
   * want.
   */
  public static final String UPSTREAM_LEVEL = "debug";

  private LogLevels() {}

  public static boolean isLevel(String level) {
    return ORDER.contains(level);
  }

  /**
   * Whether a message at {@code level} reaches a session filtering at {@code threshold}; unknown
   * levels pass.
   */
  public static boolean passes(String level, String threshold) {
    if (OFF.equals(threshold)) {
      return false;
    }
    int rank = ORDER.indexOf(level);
    return rank < 0 || rank >= ORDER.indexOf(threshold);
  }
}
