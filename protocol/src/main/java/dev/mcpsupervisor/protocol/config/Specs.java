package dev.mcpsupervisor.protocol.config;

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
   * The URL for printing: no user info, query or fragment, which may hold a secret
   * ("?api_key=...").
   */
  static String printable(URI url) {
    if (url.getHost() == null) {
      return url.getScheme() + "://…";
    }
    String printable =
        url.getScheme()
            + "://"
            + url.getHost()
            + (url.getPort() == -1 ? "" : ":" + url.getPort())
            + (url.getRawPath() == null ? "" : url.getRawPath());
    return url.getRawQuery() == null && url.getRawFragment() == null ? printable : printable + "?…";
  }

  /** ", protocol=..." when it is not the default, else nothing: most specs never set it. */
  static String printable(UpstreamProtocol protocol) {
    return protocol == UpstreamProtocol.AUTO ? "" : ", protocol=" + protocol.configName();
  }
}
