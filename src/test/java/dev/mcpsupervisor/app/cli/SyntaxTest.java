package dev.mcpsupervisor.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Parsing a command line and writing its usage, without any command to run. */
class SyntaxTest {

  private static final Syntax SYNTAX =
      new Syntax(
          "probe",
          "Probes an endpoint. Then it says what it found.",
          List.of(new Syntax.Parameter("URL", "where to probe")),
          List.of(
              Flag.option("--count", "N", "how many probes").alias("-n").withDefault("3"),
              Flag.option("--config", "FILE", "a file"),
              Flag.toggle("--quiet", "print nothing"),
              Flag.option("--header", "LINE", "a header").asRepeatable(),
              Flag.option("--port", "N", "the port").asRequired()));

  private static String error(String... args) {
    return assertThrows(UsageException.class, () -> SYNTAX.parse(args)).getMessage();
  }

  @Test
  void valuesByLongOrShortNameWithOrWithoutAnEqualsSign() {
    Arguments given =
        SYNTAX.parse("-n", "5", "http://h/", "--config=a.json", "--port", "-1", "--quiet");
    assertEquals(5, given.integer("--count"));
    assertEquals(Path.of("a.json"), given.path("--config"));
    assertEquals(-1, given.integer("--port"), "a value is the next argument, even with a dash");
    assertTrue(given.has("--quiet"));
    assertEquals("http://h/", given.parameter("URL"));
  }

  @Test
  void defaultsAndAbsentFlags() {
    Arguments given = SYNTAX.parse("--port", "1", "u");
    assertEquals(3, given.integer("--count"));
    assertFalse(given.has("--count"), "a default is not a given flag");
    assertNull(given.path("--config"));
    assertFalse(given.has("--quiet"));
    assertEquals(List.of(), given.texts("--header"));
  }

  @Test
  void aRepeatableFlagKeepsEveryValueInOrderAndOthersAreGivenOnce() {
    Arguments given = SYNTAX.parse("--header", "a: 1", "u", "--header", "b: 2", "--port", "1");
    assertEquals(List.of("a: 1", "b: 2"), given.texts("--header"));
    assertEquals(
        "option '--config' should be given only once",
        error("--config", "a", "--config", "b", "u", "--port", "1"));
  }

  @Test
  void everyWayToGetItWrongIsOneLine() {
    assertEquals(
        "Unknown option: '--con'; did you mean --count or --config?",
        error("--con", "1", "u", "--port", "1"));
    assertEquals(
        "Unknown option: '--confg'; did you mean --config?", error("--confg", "u", "--port", "1"));
    assertEquals("Unknown option: '--verbose'", error("--verbose", "u", "--port", "1"));
    assertEquals(
        "Unknown option: '--head'; did you mean --header or --help?",
        error("--head", "u", "--port", "1"));
    assertEquals("Unknown option: '--sort'", error("--sort", "u", "--port", "1"));
    assertEquals("Missing value for option '--port' (N)", error("u", "--port"));
    assertEquals("Missing required option: '--port N'", error("u"));
    assertEquals("Missing required parameter: 'URL'", error("--port", "1"));
    assertEquals("Unexpected argument: 'v'", error("u", "v", "--port", "1"));
    assertEquals("option '--quiet' takes no value", error("u", "--port", "1", "--quiet=yes"));
    Arguments notANumber = SYNTAX.parse("u", "--port", "1", "-n", "many");
    assertEquals(
        "Invalid value for option '--count': 'many' is not an int",
        assertThrows(UsageException.class, () -> notANumber.integer("--count")).getMessage());
    Arguments nul = SYNTAX.parse("u", "--port", "1", "--config", "a\0b");
    assertEquals(
        "Invalid value for option '--config': 'a\0b' is not a path",
        assertThrows(UsageException.class, () -> nul.path("--config")).getMessage());
    Arguments zero = SYNTAX.parse("u", "--port", "1", "-n", "0");
    assertEquals(
        "--count must be at least 1, got 0",
        assertThrows(UsageException.class, () -> zero.positive("--count")).getMessage());
  }

  @Test
  void doubleDashEndsTheFlagsAndHelpNeedsNothingElse() {
    assertEquals("--port", SYNTAX.parse("--port", "1", "--", "--port").parameter("URL"));
    Arguments help = SYNTAX.parse("-h");
    assertTrue(help.has("--help"), "no URL and no --port needed for help");
    assertTrue(SYNTAX.parse("--version").has("--version"));
  }

  @Test
  void theUsageListsParametersFlagsDefaultsAndCommands() {
    Syntax other = new Syntax("other", "Does another thing. At length.", List.of(), List.of());
    String usage = SYNTAX.usage("tool probe", List.of(other));
    List<String> lines = usage.lines().toList();
    assertEquals("Usage: tool probe [OPTIONS] URL [COMMAND]", lines.get(0));
    assertEquals("Probes an endpoint. Then it says what it found.", lines.get(1));
    assertEquals("", lines.get(2));
    assertTrue(lines.contains("  URL                where to probe"), usage);
    assertTrue(lines.contains("  -n, --count N      how many probes (default 3)"), usage);
    assertTrue(lines.contains("      --quiet        print nothing"), usage);
    assertTrue(lines.contains("  -h, --help         Show this help and exit."), usage);
    assertTrue(lines.contains("  other  Does another thing."), usage);
    assertTrue(lines.stream().allMatch(line -> line.length() <= 80), usage);
  }

  @Test
  void longTextIsWrappedUnderItsColumn() {
    String wrapped = Syntax.wrap("word ".repeat(40).strip(), 10);
    List<String> lines = wrapped.lines().toList();
    assertTrue(lines.size() > 1, wrapped);
    assertTrue(lines.stream().allMatch(line -> line.startsWith(" ".repeat(10) + "word")), wrapped);
    assertTrue(lines.stream().allMatch(line -> line.length() <= 80), wrapped);
  }
}
