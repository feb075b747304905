package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigResolveOptions;
import com.typesafe.config.ConfigValue;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every default has one home: the reference.conf of the module that reads it. No key and no section
 * is set by two of them, no setting repeats another's value under the same name (it refers to it
 * instead), and docs/configuration.md shows the defaults they set. The application's test classpath
 * holds every module's reference.conf.
 */
class DefaultsHaveOneHomeTest {

  private static final String ROOT = "mcp-supervisor";

  private static final Path CONFIGURATION_MD =
      Path.of(System.getProperty("basedir", "."), "..", "docs", "configuration.md");

  /** The docs' sections with a table of defaults, and the block of reference.conf each shows. */
  private static final Map<String, String> DOCUMENTED_SECTIONS =
      Map.of(
          "### How it is shared", ROOT + ".server-defaults",
          "## The gateway: `gateway`", ROOT + ".gateway",
          "## Tuning the supervisor", ROOT + ".supervisor",
          "## Tuning the gateway", ROOT + ".http",
          "## The application", ROOT + ".application");

  private static final Pattern CODE = Pattern.compile("`([^`]*)`");

  /** Each reference.conf on the classpath that sets something under our root, unresolved. */
  private static Map<String, Config> ourReferenceFiles() throws IOException {
    Map<String, Config> files = new LinkedHashMap<>();
    for (URL url :
        Collections.list(
            DefaultsHaveOneHomeTest.class.getClassLoader().getResources("reference.conf"))) {
      Config file = ConfigFactory.parseURL(url);
      if (file.root().containsKey(ROOT)) {
        files.put(url.toString(), file);
      }
    }
    return files;
  }

  /** Our reference.conf files merged and resolved, without the environment or system properties. */
  private static Config ourDefaults() throws IOException {
    Config merged = ConfigFactory.empty();
    for (Config file : ourReferenceFiles().values()) {
      merged = merged.withFallback(file);
    }
    return merged.resolve(ConfigResolveOptions.defaults().setUseSystemEnvironment(false));
  }

  @Test
  void everyKeyAndEverySectionIsSetByExactlyOneReferenceConf() throws IOException {
    Map<String, Config> files = ourReferenceFiles();
    assertEquals(
        6,
        files.size(),
        () ->
            "protocol, actors, cluster, cluster-bootstrap, http and the application: "
                + files.keySet());
    Map<String, List<String>> keyHomes = new TreeMap<>();
    Map<String, List<String>> sectionHomes = new TreeMap<>();
    files.forEach(
        (file, config) -> {
          config
              .entrySet()
              .forEach(
                  entry ->
                      keyHomes.computeIfAbsent(entry.getKey(), k -> new ArrayList<>()).add(file));
          config
              .getObject(ROOT)
              .keySet()
              .forEach(
                  section ->
                      sectionHomes
                          .computeIfAbsent(ROOT + "." + section, k -> new ArrayList<>())
                          .add(file));
        });
    keyHomes.forEach(
        (key, homes) ->
            assertEquals(1, homes.size(), () -> key + " is set by more than one file: " + homes));
    sectionHomes.forEach(
        (section, homes) ->
            assertEquals(
                1, homes.size(), () -> section + " is split across files (merge them): " + homes));
  }

  @Test
  void noSettingRepeatsTheDefaultOfAnotherOfTheSameName() throws IOException {
    Map<String, List<String>> pathsByNameAndValue = new TreeMap<>();
    for (Config file : ourReferenceFiles().values()) {
      for (Map.Entry<String, ConfigValue> entry : file.entrySet()) {
        String literal = literal(entry.getValue());
        if (literal != null) {
          String path = entry.getKey();
          String name = path.substring(path.lastIndexOf('.') + 1);
          pathsByNameAndValue
              .computeIfAbsent(name + " = " + literal, k -> new ArrayList<>())
              .add(path);
        }
      }
    }
    pathsByNameAndValue.forEach(
        (setting, paths) ->
            assertEquals(
                1,
                paths.size(),
                () ->
                    setting
                        + " is set at "
                        + paths
                        + ": one default set twice; set it once and refer to it with ${...}"));
  }

  /** The value as written, or null when it is (or contains) a substitution. */
  private static String literal(ConfigValue value) {
    try {
      value.valueType();
      return value.render(ConfigRenderOptions.concise());
    } catch (ConfigException.NotResolved substitution) {
      return null;
    }
  }

  @Test
  void theDocumentedDefaultsAreTheReferenceConfsOwn() throws IOException {
    Config defaults = ourDefaults();
    String block = null;
    int defaultColumn = -1;
    int checked = 0;
    for (String line : Files.readAllLines(CONFIGURATION_MD)) {
      if (line.startsWith("#")) {
        block = DOCUMENTED_SECTIONS.get(line.trim());
        defaultColumn = -1;
        continue;
      }
      if (block == null || !line.startsWith("|")) {
        continue;
      }
      List<String> cells = cells(line);
      if (cells.contains("Default")) {
        defaultColumn = cells.indexOf("Default");
        continue;
      }
      if (defaultColumn < 0 || defaultColumn >= cells.size() || cells.get(0).startsWith("---")) {
        continue;
      }
      List<String> names = settingNames(block, cells.get(0));
      List<String> values = List.of(cells.get(defaultColumn).split(" / "));
      for (int i = 0; i < names.size(); i++) {
        String path = names.get(i);
        if (!defaults.hasPath(path)) {
          continue; // required, or defaulted in code from another field (httpTimeout)
        }
        String documented = names.size() == values.size() ? values.get(i) : values.get(0);
        List<String> candidates = codeIn(documented);
        if (candidates.isEmpty()) {
          continue;
        }
        assertTrue(
            candidates.stream().anyMatch(candidate -> sameValue(defaults, path, candidate)),
            () ->
                "docs/configuration.md says "
                    + path
                    + " defaults to "
                    + documented
                    + ", reference.conf sets "
                    + defaults.getValue(path).render(ConfigRenderOptions.concise()));
        checked++;
      }
    }
    assertTrue(checked >= 60, "checked only " + checked + " documented defaults");
  }

  private static List<String> cells(String row) {
    List<String> cells = new ArrayList<>();
    // a cell's own "|" is escaped: `shared` \| `context`
    for (String cell : row.substring(1).split("(?<!\\\\)\\|")) {
      cells.add(cell.trim());
    }
    return cells;
  }

  /**
   * The settings a table row names: {@code `a.min` / `.max`} names a.min and a.max; the gateway
   * table's {@code oauth.x} is oauth-defaults.x, its {@code cluster.x} cluster-defaults.x.
   */
  private static List<String> settingNames(String block, String cell) {
    List<String> names = new ArrayList<>();
    String parent = null;
    for (String code : codeIn(cell)) {
      String name = code;
      if (name.startsWith(".") && parent != null) {
        name = parent + name;
      }
      parent = name.contains(".") ? name.substring(0, name.lastIndexOf('.')) : null;
      String path =
          block.endsWith(".gateway") && name.startsWith("oauth.")
              ? ROOT + ".oauth-defaults." + name.substring("oauth.".length())
              : block.endsWith(".gateway") && name.startsWith("cluster.")
                  ? ROOT + ".cluster-defaults." + name.substring("cluster.".length())
                  : block + "." + name;
      names.add(path);
    }
    return names;
  }

  private static List<String> codeIn(String text) {
    List<String> codes = new ArrayList<>();
    Matcher code = CODE.matcher(text);
    while (code.find()) {
      codes.add(code.group(1));
    }
    return codes;
  }

  /** Whether {@code documented} (HOCON, as the docs write it) is the value at {@code path}. */
  private static boolean sameValue(Config defaults, String path, String documented) {
    Config parsed;
    try {
      parsed = ConfigFactory.parseString("v = " + documented);
    } catch (ConfigException e) {
      return false;
    }
    Object expected = defaults.getValue(path).unwrapped();
    if (expected.equals(parsed.getValue("v").unwrapped())
        || String.valueOf(expected).equals(documented)) {
      return true;
    }
    try {
      return defaults.getDuration(path).equals(parsed.getDuration("v"));
    } catch (ConfigException notDurations) {
      // not durations: maybe sizes
    }
    try {
      return defaults.getBytes(path).equals(parsed.getBytes("v"));
    } catch (ConfigException notSizes) {
      return false;
    }
  }
}
