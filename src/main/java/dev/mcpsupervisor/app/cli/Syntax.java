package dev.mcpsupervisor.app.cli;

import dev.mcpsupervisor.protocol.config.EditDistance;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What one command accepts: its positional parameters, all required, and its flags, plus {@code
 * --help} and {@code --version}; parses a command line into {@link Arguments} and writes the usage.
 * A flag's value is the next argument whatever it looks like ({@code --warmup-calls -1}), or
 * follows an {@code =}; {@code --} ends the flags.
 */
public record Syntax(
    String name, String description, List<Parameter> parameters, List<Flag> flags) {

  public static final Flag HELP = Flag.toggle("--help", "Show this help and exit.").alias("-h");
  public static final Flag VERSION =
      Flag.toggle("--version", "Print the version and exit.").alias("-V");

  /** How wide the usage is written. */
  private static final int WIDTH = 80;

  /** A flag's names wider than this put its description on the next line. */
  private static final int WIDEST_LEFT = 30;

  /** A suggestion is offered for an unknown flag at most this many edits from a known one. */
  private static final int SUGGESTION_DISTANCE = 2;

  /** A positional parameter: what it is called in the usage and what it is. */
  public record Parameter(String label, String description) {}

  public Syntax {
    parameters = List.copyOf(parameters);
    flags = Stream.concat(flags.stream(), Stream.of(HELP, VERSION)).toList();
  }

  /** Parses {@code args}; a wrong line is a {@link UsageException}. */
  public Arguments parse(List<String> args) {
    Map<String, Flag> byName = new HashMap<>();
    for (Flag flag : flags) {
      flag.names().forEach(each -> byName.put(each, flag));
    }
    Map<String, List<String>> given = new LinkedHashMap<>();
    List<String> positional = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (arg.equals("--")) {
        positional.addAll(args.subList(i + 1, args.size()));
        break;
      }
      if (!arg.startsWith("-") || arg.equals("-")) {
        positional.add(arg);
        continue;
      }
      int equals = arg.startsWith("--") ? arg.indexOf('=') : -1;
      String name = equals < 0 ? arg : arg.substring(0, equals);
      Flag flag = byName.get(name);
      if (flag == null) {
        throw new UsageException("Unknown option: '" + name + "'" + suggestion(name));
      }
      String value;
      if (!flag.takesValue()) {
        if (equals >= 0) {
          throw new UsageException("option '" + flag.name() + "' takes no value");
        }
        value = "";
      } else if (equals >= 0) {
        value = arg.substring(equals + 1);
      } else if (i + 1 < args.size()) {
        value = args.get(++i);
      } else {
        throw new UsageException(
            "Missing value for option '" + flag.name() + "' (" + flag.label() + ")");
      }
      List<String> values = given.computeIfAbsent(flag.name(), key -> new ArrayList<>());
      if (!values.isEmpty() && flag.takesValue() && !flag.repeatable()) {
        throw new UsageException("option '" + flag.name() + "' should be given only once");
      }
      values.add(value);
    }
    Arguments arguments = new Arguments(flagsByLongName(), given, parametersOf(positional));
    if (!arguments.has(HELP.name()) && !arguments.has(VERSION.name())) {
      checkComplete(given, positional);
    }
    return arguments;
  }

  public Arguments parse(String... args) {
    return parse(List.of(args));
  }

  /**
   * The usage: {@code program} (the words that start this command, e.g. {@code mcp-supervisor
   * bench}), the description, the parameters and flags, and the {@code commands} it leads to.
   */
  public String usage(String program, List<Syntax> commands) {
    StringBuilder text = new StringBuilder("Usage: ").append(program).append(" [OPTIONS]");
    parameters.forEach(each -> text.append(' ').append(each.label()));
    if (!commands.isEmpty()) {
      text.append(" [COMMAND]");
    }
    text.append("\n").append(wrap(description, 0)).append("\n\n");
    List<String[]> rows = new ArrayList<>();
    parameters.forEach(each -> rows.add(new String[] {"  " + each.label(), each.description()}));
    for (Flag flag : flags) {
      String names = String.join(", ", flag.names());
      String left = (flag.names().size() > 1 ? "  " : "      ") + names;
      if (flag.takesValue()) {
        left += " " + flag.label();
      }
      String what = flag.description();
      if (flag.defaultValue() != null) {
        what += " (default " + flag.defaultValue() + ")";
      }
      rows.add(new String[] {left, what});
    }
    appendRows(text, rows);
    if (!commands.isEmpty()) {
      text.append("\nCommands:\n");
      List<String[]> commandRows = new ArrayList<>();
      commands.forEach(each -> commandRows.add(new String[] {"  " + each.name(), each.summary()}));
      appendRows(text, commandRows);
    }
    return text.toString();
  }

  /** The description's first sentence, for a list of commands. */
  String summary() {
    int end = description.indexOf(". ");
    return end < 0 ? description : description.substring(0, end + 1);
  }

  private void checkComplete(Map<String, List<String>> given, List<String> positional) {
    if (positional.size() > parameters.size()) {
      throw new UsageException("Unexpected argument: '" + positional.get(parameters.size()) + "'");
    }
    if (positional.size() < parameters.size()) {
      throw new UsageException(
          "Missing required parameter: '" + parameters.get(positional.size()).label() + "'");
    }
    for (Flag flag : flags) {
      if (flag.required() && !given.containsKey(flag.name())) {
        throw new UsageException(
            "Missing required option: '" + flag.name() + " " + flag.label() + "'");
      }
    }
  }

  private Map<String, Flag> flagsByLongName() {
    Map<String, Flag> byName = new HashMap<>();
    flags.forEach(flag -> byName.put(flag.name(), flag));
    return byName;
  }

  private Map<String, String> parametersOf(List<String> positional) {
    Map<String, String> byLabel = new HashMap<>();
    for (int i = 0; i < parameters.size() && i < positional.size(); i++) {
      byLabel.put(parameters.get(i).label(), positional.get(i));
    }
    return byLabel;
  }

  /**
   * Flags {@code unknown} may have meant: a few edits away with the same first letter (a slip of
   * the keys), or of which it is the start (an abbreviation).
   */
  private String suggestion(String unknown) {
    List<String> near =
        flags.stream()
            .map(Flag::name)
            .filter(
                name ->
                    name.startsWith(unknown)
                        || (firstLetter(name) == firstLetter(unknown)
                            && EditDistance.between(unknown, name) <= SUGGESTION_DISTANCE))
            .sorted(Comparator.comparingInt(name -> EditDistance.between(unknown, name)))
            .toList();
    return near.isEmpty() ? "" : "; did you mean " + String.join(" or ", near) + "?";
  }

  private static char firstLetter(String flag) {
    String name = flag.replaceFirst("^-+", "");
    return name.isEmpty() ? '-' : name.charAt(0);
  }

  private static void appendRows(StringBuilder text, List<String[]> rows) {
    int column =
        Math.min(rows.stream().mapToInt(row -> row[0].length()).max().orElse(0) + 2, WIDEST_LEFT);
    for (String[] row : rows) {
      String left = row[0];
      if (left.length() + 2 > column) {
        text.append(left).append("\n").append(wrap(row[1], column)).append("\n");
      } else {
        String wrapped = wrap(row[1], column);
        text.append(left).append(wrapped.substring(left.length())).append("\n");
      }
    }
  }

  /** {@code text} in lines of at most {@link #WIDTH}, each indented by {@code indent} spaces. */
  static String wrap(String text, int indent) {
    String margin = " ".repeat(indent);
    int room = Math.max(WIDTH - indent, 20);
    StringBuilder out = new StringBuilder();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > room) {
        out.append(margin).append(line).append("\n");
        line.setLength(0);
      }
      if (line.length() > 0) {
        line.append(' ');
      }
      line.append(word);
    }
    out.append(margin).append(line);
    return out.toString();
  }
}
