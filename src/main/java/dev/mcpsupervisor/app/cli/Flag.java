package dev.mcpsupervisor.app.cli;

import java.util.List;

/**
 * One flag of a {@link Syntax}: its names (the last one is the name it is read by), the label of
 * its value ({@code null} for a switch, which takes none), what it does, and its default.
 *
 * @param defaultValue the value when the flag is not given, shown in the usage; {@code null}: none
 * @param required the command cannot run without it
 * @param repeatable may be given more than once, each value kept in order
 */
public record Flag(
    List<String> names,
    String label,
    String description,
    String defaultValue,
    boolean required,
    boolean repeatable) {

  public Flag {
    names = List.copyOf(names);
    if (names.isEmpty()) {
      throw new IllegalArgumentException("a flag needs a name");
    }
  }

  /** A flag that takes a value: {@code --port N}, or {@code --port=N}. */
  public static Flag option(String name, String label, String description) {
    return new Flag(List.of(name), label, description, null, false, false);
  }

  /** A flag that takes no value: given or not. */
  public static Flag toggle(String name, String description) {
    return new Flag(List.of(name), null, description, null, false, false);
  }

  /** The same flag, also known by {@code shortName} (e.g. {@code -n}). */
  public Flag alias(String shortName) {
    return new Flag(
        List.of(shortName, name()), label, description, defaultValue, required, repeatable);
  }

  public Flag withDefault(String value) {
    return new Flag(names, label, description, value, required, repeatable);
  }

  public Flag asRequired() {
    return new Flag(names, label, description, defaultValue, true, repeatable);
  }

  public Flag asRepeatable() {
    return new Flag(names, label, description, defaultValue, required, true);
  }

  /** The name it is read by: the long one. */
  public String name() {
    return names.get(names.size() - 1);
  }

  public boolean takesValue() {
    return label != null;
  }
}
