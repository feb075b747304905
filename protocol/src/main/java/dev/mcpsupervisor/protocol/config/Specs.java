package dev.mcpsupervisor.protocol.config;

import java.util.LinkedHashMap;
import java.util.Map;

final class Specs {

  private Specs() {}

  static Map<String, String> merge(Map<String, String> base, Map<String, String> extra) {
    Map<String, String> merged = new LinkedHashMap<>(base);
    merged.putAll(extra);
    return merged;
  }
}
