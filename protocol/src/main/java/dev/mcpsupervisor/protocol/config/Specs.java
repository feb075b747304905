package dev.mcpsupervisor.protocol.config;

import dev.mcpsupervisor.protocol.UpstreamDiagnostics;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

final class Specs {

  private Specs() {}

  /**
   * Headers of {@code extra} replace those of {@code base} with the same name in any case, as HTTP
   * names compare.
   */
  static Map<String, String> merge(Map<String, String> base, Map<String, String> extra) {
    Map<String, String> merged = new LinkedHashMap<>(base);
    merged.keySet().removeIf(name -> extra.keySet().stream().anyMatch(name::equalsIgnoreCase));
    merged.putAll(extra);
    return merged;
  }

  /**
   * The URL for printing: scheme, host and port only; user info, query and even the path may hold a
   * secret ("?api_key=...", "/mcp/sk-...").
   */
  static String printable(URI url) {
    return UpstreamDiagnostics.redactUrl(url);
  }

  /** ", protocol=..." when it is not the default, else nothing: most specs never set it. */
  static String printable(UpstreamProtocol protocol) {
    return protocol == UpstreamProtocol.AUTO ? "" : ", protocol=" + protocol.configName();
  }
}
