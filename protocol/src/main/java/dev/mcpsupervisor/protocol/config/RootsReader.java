package dev.mcpsupervisor.protocol.config;

import com.typesafe.config.ConfigValue;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a {@code roots} list (a server's, or the top level's for every server): objects of {@code
 * uri} and optional {@code name}. MCP roots are {@code file://} URIs, each listed once.
 */
final class RootsReader {

  static final String ROOTS = "roots";
  static final String URI_FIELD = "uri";
  static final String NAME = "name";

  private static final FieldRules RULES =
      new FieldRules(List.of(URI_FIELD, NAME), Set.of(), Map.of());

  private RootsReader() {}

  /** The section's roots, or {@code absent} when it has no {@code roots} field. */
  static List<Root> read(ConfigSection section, List<Root> absent) {
    if (!section.has(ROOTS)) {
      return absent;
    }
    List<Root> roots = new ArrayList<>();
    Set<String> uris = new HashSet<>();
    List<ConfigValue> elements = section.list(ROOTS);
    for (int i = 0; i < elements.size(); i++) {
      ConfigSection root = section.section(elements.get(i), section.path(ROOTS) + "[" + i + "]");
      RULES.check(root);
      if (!root.has(URI_FIELD)) {
        throw root.error(URI_FIELD, "missing (a root is a file:// URI and an optional name)");
      }
      String uri = root.nonEmptyString(URI_FIELD).strip();
      checkFileUri(root, uri);
      if (!uris.add(uri)) {
        throw root.error(URI_FIELD, "\"" + uri + "\" is listed twice");
      }
      roots.add(new Root(uri, root.optionalNonEmptyString(NAME)));
    }
    return List.copyOf(roots);
  }

  private static void checkFileUri(ConfigSection root, String uri) {
    URI parsed;
    try {
      parsed = new URI(uri);
    } catch (URISyntaxException e) {
      throw root.error(
          URI_FIELD, "not a valid URI (" + e.getReason() + " at index " + e.getIndex() + ")");
    }
    if (!"file".equalsIgnoreCase(parsed.getScheme()) || parsed.getRawPath() == null) {
      throw root.error(
          URI_FIELD, "must be a file:// URI (MCP roots are files), got \"" + uri + "\"");
    }
  }
}
