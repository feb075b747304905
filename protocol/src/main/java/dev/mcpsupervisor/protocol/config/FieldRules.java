package dev.mcpsupervisor.protocol.config;

import com.typesafe.config.ConfigValue;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which fields one kind of section may have: the ones read, the ones other MCP clients write that
 * mean nothing to a gateway (accepted and ignored), and the ones that would change behaviour if
 * honoured (rejected with a hint, never silently dropped). Anything else is an unknown field,
 * answered with the nearest known name for a near miss.
 */
record FieldRules(List<String> known, Set<String> ignored, Map<String, String> unsupported) {

  /** Typos up to this many edits get a "did you mean". */
  static final int MAX_SUGGESTION_DISTANCE = 2;

  FieldRules {
    known = List.copyOf(known);
    ignored = Set.copyOf(ignored);
    unsupported = Map.copyOf(unsupported);
  }

  /** Fails on the first field (in file order) that is unknown or unsupported. */
  void check(ConfigSection section) {
    for (Map.Entry<String, ConfigValue> member : section.membersInFileOrder()) {
      String field = member.getKey();
      if (known.contains(field) || ignored.contains(field)) {
        continue;
      }
      String hint = unsupported.get(field);
      if (hint != null) {
        throw section.error(field, "not supported; " + hint);
      }
      String suggestion = nearest(field);
      throw section.error(
          field,
          suggestion != null
              ? "unknown field; did you mean \"" + suggestion + "\"?"
              : "unknown field (expected one of " + String.join(", ", known) + ")");
    }
  }

  private String nearest(String field) {
    String best = null;
    int bestDistance = MAX_SUGGESTION_DISTANCE + 1;
    for (String candidate : known) {
      int distance =
          EditDistance.between(field.toLowerCase(Locale.ROOT), candidate.toLowerCase(Locale.ROOT));
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    return best;
  }
}
