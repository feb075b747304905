package dev.mcpsupervisor.benchreport;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command line after the command: {@code --name value} pairs, {@code --png}-style flags, and
 * operands.
 */
record Options(Map<String, String> values, Set<String> flags, List<String> operands) {

  private static final Set<String> FLAGS = Set.of("--png");

  /** Rejects a {@code --name} that is not in {@code known} (a typo would otherwise be ignored). */
  static Options parse(List<String> args, Set<String> known) {
    Map<String, String> values = new HashMap<>();
    Set<String> flags = new HashSet<>();
    List<String> operands = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (FLAGS.contains(arg)) {
        flags.add(arg);
      } else if (arg.startsWith("--")) {
        if (!known.contains(arg)) {
          throw new IllegalArgumentException("unknown option " + arg);
        }
        if (i + 1 >= args.size()) {
          throw new IllegalArgumentException(arg + " needs a value");
        }
        values.put(arg, args.get(++i));
      } else {
        operands.add(arg);
      }
    }
    return new Options(values, flags, operands);
  }

  Path path(String name) {
    return values.containsKey(name) ? Path.of(values.get(name)) : null;
  }

  Path pathOr(String name, Path fallback) {
    return values.containsKey(name) ? Path.of(values.get(name)) : fallback;
  }

  String valueOr(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  boolean flag(String name) {
    return flags.contains(name);
  }

  Path single(String problem) {
    if (operands.size() != 1) {
      throw new IllegalArgumentException(problem);
    }
    return Path.of(operands.get(0));
  }
}
