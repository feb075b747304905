package dev.mcpsupervisor.app.cli;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A command line parsed by its {@link Syntax}: the values given, read by a flag's long name or a
 * parameter's label, each converted when read (a value that does not convert is a {@link
 * UsageException} naming the flag).
 */
public final class Arguments {

  private final Map<String, Flag> flags;
  private final Map<String, List<String>> given;
  private final Map<String, String> parameters;

  Arguments(
      Map<String, Flag> flags, Map<String, List<String>> given, Map<String, String> parameters) {
    this.flags = flags;
    this.given = given;
    this.parameters = parameters;
  }

  /** Whether the flag was given (a switch: whether it is on). */
  public boolean has(String name) {
    return given.containsKey(flag(name).name());
  }

  /** The flag's value, its default when not given, or {@code null}. */
  public String text(String name) {
    Flag flag = flag(name);
    List<String> values = given.get(flag.name());
    return values == null ? flag.defaultValue() : values.get(values.size() - 1);
  }

  /** Every value of a repeatable flag, in order; empty when not given. */
  public List<String> texts(String name) {
    return List.copyOf(given.getOrDefault(flag(name).name(), List.of()));
  }

  /** The flag's value as an int, or {@code null} when it has none. */
  public Integer integer(String name) {
    return converted(name, Integer::valueOf, "is not an int");
  }

  /** The flag's value (or default) as an int of at least 1. */
  public int positive(String name) {
    Integer value = integer(name);
    if (value == null) {
      throw new IllegalArgumentException("no value or default for " + name);
    }
    if (value < 1) {
      throw new UsageException(flag(name).name() + " must be at least 1, got " + value);
    }
    return value;
  }

  /** The flag's value as a long, or {@code null} when it has none. */
  public Long longInteger(String name) {
    return converted(name, Long::valueOf, "is not a long");
  }

  /** The flag's value as a path, or {@code null} when it has none. */
  public Path path(String name) {
    return converted(name, Path::of, "is not a path");
  }

  /** The positional parameter named {@code label} in the syntax. */
  public String parameter(String label) {
    if (!parameters.containsKey(label)) {
      throw new IllegalArgumentException("no parameter " + label);
    }
    return parameters.get(label);
  }

  /** {@code text} as a URI; {@code what} names it in the error ("URL", "--urls"). */
  public static URI uri(String what, String text) {
    try {
      return new URI(text);
    } catch (URISyntaxException e) {
      throw new UsageException("Invalid value for " + what + ": '" + text + "' is not a URI");
    }
  }

  private Flag flag(String name) {
    Flag flag = flags.get(name);
    if (flag == null) {
      // a programming error, not the user's
      throw new IllegalArgumentException("no flag " + name);
    }
    return flag;
  }

  /** The flag's value through {@code convert}; a value it refuses is the user's mistake. */
  private <T> T converted(String name, Function<String, T> convert, String problem) {
    String text = text(name);
    if (text == null) {
      return null;
    }
    try {
      return convert.apply(text);
    } catch (IllegalArgumentException e) {
      // NumberFormatException and InvalidPathException are both
      throw invalid(name, text, problem);
    }
  }

  private UsageException invalid(String name, String text, String problem) {
    return new UsageException(
        "Invalid value for option '" + flag(name).name() + "': '" + text + "' " + problem);
  }
}
