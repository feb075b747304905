package dev.mcpsupervisor.protocol;

import java.util.List;

/** MCP protocol versions the gateway speaks, newest first. */
public final class ProtocolVersions {

  private ProtocolVersions() {}

  public static final String V2024_11_05 = "2024-11-05";
  public static final String V2025_03_26 = "2025-03-26";
  public static final String V2025_06_18 = "2025-06-18";
  public static final String V2025_11_25 = "2025-11-25";

  public static final String LATEST = V2025_11_25;

  public static final List<String> SUPPORTED =
      List.of(V2025_11_25, V2025_06_18, V2025_03_26, V2024_11_05);

  public static boolean isSupported(String version) {
    return SUPPORTED.contains(version);
  }

  /** The version to answer an initialize with: the client's if supported, else the latest. */
  public static String negotiate(String requested) {
    return isSupported(requested) ? requested : LATEST;
  }
}
