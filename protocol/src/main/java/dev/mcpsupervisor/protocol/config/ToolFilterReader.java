package dev.mcpsupervisor.protocol.config;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Reads a server's {@link ToolFilter}: the allow-list {@code tools} (Gemini CLI's {@code
 * includeTools}) and the deny-list {@code disabledTools} (Gemini CLI's {@code excludeTools}). Both
 * names of one list, an empty tool name, or a tool on both lists is an error: the config could mean
 * two things.
 */
final class ToolFilterReader {

  static final String TOOLS = "tools";
  static final String INCLUDE_TOOLS = "includeTools";
  static final String DISABLED_TOOLS = "disabledTools";
  static final String EXCLUDE_TOOLS = "excludeTools";

  private ToolFilterReader() {}

  static ToolFilter read(ConfigSection server) {
    String allowField = oneOf(server, TOOLS, INCLUDE_TOOLS);
    String denyField = oneOf(server, DISABLED_TOOLS, EXCLUDE_TOOLS);
    Set<String> allowed = allowField == null ? null : names(server, allowField);
    Set<String> disabled = denyField == null ? Set.of() : names(server, denyField);
    if (allowed != null) {
      for (String tool : disabled) {
        if (allowed.contains(tool)) {
          throw server.error(
              denyField,
              "\""
                  + tool
                  + "\" is in both "
                  + allowField
                  + " and "
                  + denyField
                  + "; keep it in one");
        }
      }
    }
    return allowed == null && disabled.isEmpty()
        ? ToolFilter.ALL
        : new ToolFilter(allowed, disabled);
  }

  /** The field of the pair that is present (null when neither is); both present is an error. */
  private static String oneOf(ConfigSection server, String field, String alias) {
    if (server.has(field) && server.has(alias)) {
      throw server.error(alias, "use either " + field + " or " + alias + ", not both");
    }
    return server.has(alias) ? alias : server.has(field) ? field : null;
  }

  private static Set<String> names(ConfigSection server, String field) {
    Set<String> names = new LinkedHashSet<>();
    for (String name : server.stringList(field)) {
      if (name.isBlank()) {
        throw server.error(field, "tool names must not be empty");
      }
      names.add(name);
    }
    return names;
  }
}
