package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The packages of each module's main code form a DAG: no class refers to a class of a package that
 * (transitively) refers back to its own. Read from the sources, without compiling: a class of
 * another package is named in an import or by its full name, a class of the same package by its
 * simple name (which stays inside the package). Classes are named relative to their module's root
 * package ({@code GatewayServer}, {@code session.DownstreamSession}). One test for every module (it
 * sits here, in the module that depends on them all), and no exceptions: a cycle is cut where it
 * is, by moving the class that closes it.
 */
class PackageDependenciesTest {

  /** The modules checked, by directory, with their root packages. */
  private record Module(String directory, String root) {
    Path sources() {
      Path repository = Path.of(System.getProperty("basedir", "."), "..");
      // the app's module directory is src/ itself
      return repository.resolve(
          directory.equals("src") ? "src/main/java" : directory + "/src/main/java");
    }
  }

  private static final Pattern COMMENT_OR_LITERAL =
      Pattern.compile(
          "(?s)/\\*.*?\\*/|//[^\\n]*|\"\"\".*?\"\"\"|\"(?:\\\\.|[^\"\\\\])*\"|'(?:\\\\.|[^'\\\\])*'");

  static Stream<Module> modules() {
    return Stream.of(
        new Module("protocol", "dev.mcpsupervisor.protocol"),
        new Module("upstream", "dev.mcpsupervisor.upstream"),
        new Module("fixture-server", "dev.mcpsupervisor.fixture"),
        new Module("actors", "dev.mcpsupervisor.actors"),
        new Module("cluster", "dev.mcpsupervisor.cluster"),
        new Module("http", "dev.mcpsupervisor.http"),
        new Module("src", "dev.mcpsupervisor.app"),
        new Module("bench-report", "dev.mcpsupervisor.benchreport"),
        new Module("testkit", "dev.mcpsupervisor.testkit"),
        new Module("integrations/spring-ai", "dev.mcpsupervisor.springai"),
        new Module("integrations/langchain4j", "dev.mcpsupervisor.langchain4j"));
  }

  @Test
  void everyModuleWithMainCodeIsChecked() throws IOException {
    Path repository = Path.of(System.getProperty("basedir", "."), "..");
    Matcher module =
        Pattern.compile("<module>([^<]+)</module>")
            .matcher(Files.readString(repository.resolve("pom.xml")));
    Set<String> withMainCode = new TreeSet<>();
    while (module.find()) {
      String directory = module.group(1);
      if (Files.isDirectory(new Module(directory, "").sources())) {
        withMainCode.add(directory);
      }
    }
    Set<String> checked = new TreeSet<>();
    modules().forEach(each -> checked.add(each.directory()));
    assertEquals(withMainCode, checked);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modules")
  void noClassReferenceRunsBackUpBetweenPackages(Module module) {
    List<String> cycles = cycles(packageGraph(references(module)));
    assertTrue(cycles.isEmpty(), () -> String.join("\n", cycles));
  }

  /** Every reference from a class to a class of another package, as "a.From -> b.To". */
  static Set<String> references(Module module) {
    String rootPackage = module.root();
    Path root = module.sources().resolve(rootPackage.replace('.', '/'));
    Map<String, String> classes = new TreeMap<>(); // name relative to the root package -> its code
    try (Stream<Path> files = Files.walk(root)) {
      files
          .filter(file -> file.toString().endsWith(".java"))
          .forEach(file -> classes.put(nameOf(root.relativize(file)), code(file)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertFalse(classes.isEmpty(), "classes read from " + root.toAbsolutePath());
    // in an import (of a type, a member, or all of a package's types) or a full name in code
    Pattern named = Pattern.compile(Pattern.quote(rootPackage) + "\\.(\\w+(?:\\.\\w+)*)(\\.\\*)?");
    Set<String> references = new TreeSet<>();
    classes.forEach(
        (from, code) -> {
          Matcher name = named.matcher(code.substring(code.indexOf(';') + 1)); // past the package
          while (name.find()) {
            String dotted = name.group(1);
            List<String> targets = new ArrayList<>();
            if (name.group(2) != null && classNamed(dotted, classes) == null) {
              classes.keySet().stream()
                  .filter(type -> packageOf(type).equals(dotted))
                  .filter(
                      type ->
                          Pattern.compile("\\b" + simpleName(type) + "\\b").matcher(code).find())
                  .forEach(targets::add);
            } else if (classNamed(dotted, classes) != null) {
              targets.add(classNamed(dotted, classes));
            }
            targets.stream()
                .filter(to -> !packageOf(to).equals(packageOf(from)))
                .forEach(to -> references.add(from + " -> " + to));
          }
        });
    return references;
  }

  /** Package -> the packages it refers to -> the class references that make it so. */
  static Map<String, Map<String, Set<String>>> packageGraph(Set<String> references) {
    Map<String, Map<String, Set<String>>> graph = new TreeMap<>();
    for (String reference : references) {
      String[] ends = reference.split(" -> ");
      graph.computeIfAbsent(packageOf(ends[1]), notUsed -> new TreeMap<>());
      Map<String, Set<String>> targets =
          graph.computeIfAbsent(packageOf(ends[0]), notUsed -> new TreeMap<>());
      targets.computeIfAbsent(packageOf(ends[1]), notUsed -> new TreeSet<>()).add(reference);
    }
    return graph;
  }

  /**
   * Each group of packages that reach one another, with the references between them, fewest first:
   * the one to cut is commonly among the first.
   */
  static List<String> cycles(Map<String, Map<String, Set<String>>> graph) {
    List<String> cycles = new ArrayList<>();
    Set<String> seen = new TreeSet<>();
    for (String start : graph.keySet()) {
      Set<String> group = reachable(graph, start);
      group.removeIf(other -> !reachable(graph, other).contains(start));
      if (group.isEmpty() || !seen.addAll(group)) {
        continue;
      }
      StringBuilder cycle = new StringBuilder("packages that depend on each other: " + group);
      group.stream()
          .flatMap(from -> graph.get(from).entrySet().stream())
          .filter(to -> group.contains(to.getKey()))
          .map(Map.Entry::getValue)
          .sorted(Comparator.comparingInt(Set::size))
          .forEach(references -> cycle.append("\n  ").append(String.join(", ", references)));
      cycles.add(cycle.toString());
    }
    return cycles;
  }

  /** The packages reachable from {@code from} by one reference or more. */
  static Set<String> reachable(Map<String, Map<String, Set<String>>> graph, String from) {
    Set<String> reached = new TreeSet<>();
    Deque<String> next = new ArrayDeque<>(graph.get(from).keySet());
    while (!next.isEmpty()) {
      String at = next.removeFirst();
      if (reached.add(at)) {
        next.addAll(graph.get(at).keySet());
      }
    }
    return reached;
  }

  /**
   * The class a dotted name below the root package is in (a nested type or a member is in its
   * file's).
   */
  private static String classNamed(String dotted, Map<String, String> classes) {
    for (String name = dotted; !classes.containsKey(name); ) {
      if (!name.contains(".")) {
        return null;
      }
      name = name.substring(0, name.lastIndexOf('.'));
      if (classes.containsKey(name)) {
        return name;
      }
    }
    return dotted;
  }

  private static String nameOf(Path relative) {
    String name = relative.toString().replace(relative.getFileSystem().getSeparator(), ".");
    return name.substring(0, name.length() - ".java".length());
  }

  /** "" for the root package itself. */
  private static String packageOf(String name) {
    return name.contains(".") ? name.substring(0, name.lastIndexOf('.')) : "";
  }

  private static String simpleName(String name) {
    return name.substring(name.lastIndexOf('.') + 1);
  }

  /** The file without its comments and literals (whose words name nothing). */
  private static String code(Path file) {
    try {
      return COMMENT_OR_LITERAL
          .matcher(Files.readString(file))
          .replaceAll(found -> found.group().startsWith("/") ? " " : "\"\"");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
