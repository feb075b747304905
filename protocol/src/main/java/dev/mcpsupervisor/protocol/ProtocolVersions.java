package dev.mcpsupervisor.protocol;

import java.util.List;

/** MCP protocol versions the gateway speaks, newest first. */
public final class ProtocolVersions {

  private ProtocolVersions() {}

  public static final String V2024_11_05 = "2024-11-05";
  public static final String V2025_03_26 = "2025-03-26";
  public static final String V2025_06_18 = "2025-06-18";
  public static final String V2025_11_25 = "2025-11-25";

  /** The stateless revision: no initialize, no session, {@code _meta} on every request. */
  public static final String V2026_07_28 = "2026-07-28";

  /** The newest session-era version: what an initialize is answered with by default. */
  public static final String LATEST = V2025_11_25;

  public static final List<String> SUPPORTED =
      List.of(V2025_11_25, V2025_06_18, V2025_03_26, V2024_11_05);

  /** The stateless versions the gateway serves (no initialize, {@code _meta} on every request). */
  public static final List<String> STATELESS = List.of(V2026_07_28);

  /** Every version the gateway serves, newest first: what server/discover announces. */
  public static final List<String> ALL =
      List.of(V2026_07_28, V2025_11_25, V2025_06_18, V2025_03_26, V2024_11_05);

  /** A session-era version (initialize, Mcp-Session-Id). */
  public static boolean isSupported(String version) {
    return SUPPORTED.contains(version);
  }

  /**
   * The version to answer an initialize with: the client's if supported, else the latest; always
   * one of the constants (a session keeps it, not the request's copy).
   */
  public static String negotiate(String requested) {
    int index = SUPPORTED.indexOf(requested);
    return index >= 0 ? SUPPORTED.get(index) : LATEST;
  }
}
