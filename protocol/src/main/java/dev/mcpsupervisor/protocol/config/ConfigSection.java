package dev.mcpsupervisor.protocol.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One object of the config file (the top level, a server, the gateway section), with typed reads
 * that fail with a {@link ConfigException} naming the file and the full path of the field. Absent
 * and {@code null} fields read the same.
 */
final class ConfigSection {

  /**
   * A client-side variable such as VS Code's ${input:token} or ${env:HOME}, which arrives here
   * unexpanded.
   */
  private static final Pattern CLIENT_VARIABLE = Pattern.compile("\\$\\{[^}]*}");

  private final Config config;
  private final String origin;
  private final String path;

  ConfigSection(Config config, String origin, String path) {
    this.config = config;
    this.origin = origin;
    this.path = path;
  }

  String origin() {
    return origin;
  }

  String path() {
    return path;
  }

  /**
   * The path of a member: elements are quoted as HOCON needs ({@code mcpServers."my.server".url}).
   */
  static String childPath(String parent, String key) {
    String element = ConfigUtil.joinPath(key);
    return parent.isEmpty() ? element : parent + "." + element;
  }

  String path(String field) {
    return childPath(path, field);
  }

  ConfigException error(String problem) {
    return new ConfigException(origin, path, problem);
  }

  ConfigException error(String field, String problem) {
    return new ConfigException(origin, path(field), problem);
  }

  boolean has(String field) {
    return config.hasPath(ConfigUtil.joinPath(field));
  }

  private ConfigValue value(String field) {
    return config.getValue(ConfigUtil.joinPath(field));
  }

  /** A nested object as a section of its own, or null when absent. */
  ConfigSection section(String field) {
    if (!has(field)) {
      return null;
    }
    ConfigValue value = value(field);
    if (value.valueType() != ConfigValueType.OBJECT) {
      throw error(field, "must be an object, got " + typeOf(value));
    }
    return new ConfigSection(((ConfigObject) value).toConfig(), origin, path(field));
  }

  /**
   * This section's members, in file order (by line; same-line members by name, as HOCON keeps no
   * order).
   */
  List<Map.Entry<String, ConfigValue>> membersInFileOrder() {
    return inFileOrder(config.root());
  }

  static List<Map.Entry<String, ConfigValue>> inFileOrder(ConfigObject object) {
    List<Map.Entry<String, ConfigValue>> members = new ArrayList<>(object.entrySet());
    members.sort(
        Comparator.<Map.Entry<String, ConfigValue>>comparingInt(
                member -> member.getValue().origin().lineNumber())
            .thenComparing(Map.Entry::getKey));
    return members;
  }

  /** A section whose missing fields come from {@code defaults}. */
  ConfigSection withDefaults(Config defaults) {
    return new ConfigSection(config.withFallback(defaults), origin, path);
  }

  String string(String field) {
    return checkedString(value(field), path(field));
  }

  /** A string, or a number as written ({@code protocol = 2025} needs no quotes). */
  String stringOrNumber(String field) {
    ConfigValue value = value(field);
    return value.valueType() == ConfigValueType.NUMBER
        ? String.valueOf(value.unwrapped())
        : checkedString(value, path(field));
  }

  String nonEmptyString(String field) {
    String value = string(field);
    if (value.isBlank()) {
      throw error(field, "must not be empty");
    }
    return value;
  }

  /** Absent: null. */
  String optionalNonEmptyString(String field) {
    return has(field) ? nonEmptyString(field) : null;
  }

  /** Absent: empty. */
  List<String> stringList(String field) {
    if (!has(field)) {
      return List.of();
    }
    ConfigValue value = value(field);
    if (value.valueType() != ConfigValueType.LIST) {
      throw error(field, "must be a list of strings, got " + typeOf(value));
    }
    List<String> strings = new ArrayList<>();
    List<?> elements = (List<?>) value;
    for (int i = 0; i < elements.size(); i++) {
      strings.add(checkedString((ConfigValue) elements.get(i), path(field) + "[" + i + "]"));
    }
    return strings;
  }

  /** A list's elements, of any type; absent: empty. */
  List<ConfigValue> list(String field) {
    if (!has(field)) {
      return List.of();
    }
    ConfigValue value = value(field);
    if (value.valueType() != ConfigValueType.LIST) {
      throw error(field, "must be a list, got " + typeOf(value));
    }
    return List.copyOf((ConfigList) value);
  }

  /** A list element (at {@code elementPath}) that must be a string. */
  String string(ConfigValue element, String elementPath) {
    return checkedString(element, elementPath);
  }

  /** A list element (at {@code elementPath}) that must be an object, as a section. */
  ConfigSection section(ConfigValue element, String elementPath) {
    if (element.valueType() != ConfigValueType.OBJECT) {
      throw new ConfigException(origin, elementPath, "must be an object, got " + typeOf(element));
    }
    return new ConfigSection(((ConfigObject) element).toConfig(), origin, elementPath);
  }

  /** An object whose values are all strings, in file order; absent: empty. */
  Map<String, String> stringMap(String field) {
    return stringMap(field, null);
  }

  /**
   * {@link #stringMap(String)} whose values may hold the variables {@code ours} matches (the
   * gateway's own, such as {@code ${identity:NAME}}); any other is refused as a client's.
   */
  Map<String, String> stringMap(String field, Pattern ours) {
    ConfigSection section = section(field);
    if (section == null) {
      return Map.of();
    }
    Map<String, String> strings = new LinkedHashMap<>();
    for (Map.Entry<String, ConfigValue> member : section.membersInFileOrder()) {
      strings.put(
          member.getKey(), checkedString(member.getValue(), section.path(member.getKey()), ours));
    }
    return strings;
  }

  private String checkedString(ConfigValue value, String valuePath) {
    return checkedString(value, valuePath, null);
  }

  private String checkedString(ConfigValue value, String valuePath, Pattern ours) {
    if (value.valueType() != ConfigValueType.STRING) {
      throw new ConfigException(origin, valuePath, "must be a string, got " + typeOf(value));
    }
    String string = (String) value.unwrapped();
    Matcher clientVariable = CLIENT_VARIABLE.matcher(string);
    while (clientVariable.find()) {
      if (ours != null && ours.matcher(clientVariable.group()).matches()) {
        continue;
      }
      throw new ConfigException(
          origin,
          valuePath,
          "\""
              + clientVariable.group()
              + "\" is a client-side variable, which is not supported;"
              + " use HOCON substitution outside the quotes instead, e.g. \"Bearer \"${?TOKEN}");
    }
    return string;
  }

  /**
   * An integer in [min, max]; a numeric string (as an environment substitution gives) is accepted.
   */
  int integer(String field, int min, int max) {
    ConfigValue value = value(field);
    Object unwrapped = value.unwrapped();
    long number;
    if (unwrapped instanceof Integer || unwrapped instanceof Long) {
      number = ((Number) unwrapped).longValue();
    } else if (unwrapped instanceof String text && text.strip().matches("[+-]?\\d{1,18}")) {
      number = Long.parseLong(text.strip());
    } else {
      throw error(field, "must be an integer, got " + describe(value));
    }
    if (number < min || number > max) {
      throw error(
          field,
          max == Integer.MAX_VALUE
              ? "must be at least " + min + ", got " + number
              : "must be between " + min + " and " + max + ", got " + number);
    }
    return (int) number;
  }

  /** A duration such as "30s" or a number of milliseconds, greater than zero. */
  Duration positiveDuration(String field) {
    Duration duration;
    try {
      duration = config.getDuration(ConfigUtil.joinPath(field));
    } catch (com.typesafe.config.ConfigException e) {
      throw error(
          field,
          "must be a duration such as \"30s\" or a number of milliseconds, got "
              + describe(value(field)));
    }
    if (duration.isNegative() || duration.isZero()) {
      throw error(field, "must be greater than zero, got " + describe(value(field)));
    }
    return duration;
  }

  /** A size such as "4 MiB" or a number of bytes, greater than zero. */
  long positiveBytes(String field) {
    long bytes;
    try {
      bytes = config.getBytes(ConfigUtil.joinPath(field));
    } catch (com.typesafe.config.ConfigException e) {
      throw error(
          field,
          "must be a size such as \"4 MiB\" or a number of bytes, got " + describe(value(field)));
    }
    if (bytes <= 0) {
      throw error(field, "must be greater than zero, got " + describe(value(field)));
    }
    return bytes;
  }

  /**
   * true or false (also as a string, as an environment substitution gives); absent: {@code absent}.
   */
  boolean bool(String field, boolean absent) {
    if (!has(field)) {
      return absent;
    }
    ConfigValue value = value(field);
    Object unwrapped = value.unwrapped();
    if (unwrapped instanceof Boolean bool) {
      return bool;
    }
    if ("true".equals(unwrapped) || "false".equals(unwrapped)) {
      return Boolean.parseBoolean((String) unwrapped);
    }
    throw error(field, "must be true or false, got " + describe(value));
  }

  static String typeOf(ConfigValue value) {
    return value.valueType().name().toLowerCase(Locale.ROOT);
  }

  /** A scalar as written ("-5s", 1.5, true); containers by their type only. */
  static String describe(ConfigValue value) {
    return switch (value.valueType()) {
      case OBJECT, LIST, NULL -> typeOf(value);
      default -> value.render();
    };
  }
}
