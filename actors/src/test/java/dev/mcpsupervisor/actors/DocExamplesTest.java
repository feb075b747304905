package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.fixture.DocSnippets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plain Java examples of the README and docs/embedding.md compile as written, with this
 * module's classes and dependencies (what a project depending on mcp-supervisor-actors gets).
 */
class DocExamplesTest {

  private static final Path ROOT = Path.of(System.getProperty("basedir", "."), "..");

  @Test
  void theEmbeddingGuidesPlainExamplesCompile(@TempDir Path out) {
    Map<String, String> examples = DocSnippets.marked(ROOT.resolve("docs/embedding.md"));
    Map<String, String> plain =
        Map.of(
            "Example.java", examples.get("Example.java"),
            "JsonTreeExample.java", examples.get("JsonTreeExample.java"));

    assertEquals(List.of(), DocSnippets.compile(plain, out));
  }

  @Test
  void theReadmesExampleCompiles(@TempDir Path out) {
    Map<String, String> examples = DocSnippets.marked(ROOT.resolve("README.md"));
    assertTrue(examples.containsKey("ReadmeExample.java"), examples.keySet().toString());

    assertEquals(List.of(), DocSnippets.compile(examples, out));
  }

  @Test
  void aBrokenExampleIsReportedWithItsLine(@TempDir Path out) {
    List<String> errors =
        DocSnippets.compile(
            Map.of(
                "Broken.java", "class Broken {\n  void run() { SessionSupervisor.nothing(); }\n}"),
            out);

    assertEquals(1, errors.size(), errors.toString());
    assertTrue(errors.get(0).startsWith("Broken.java:2: "), errors.get(0));
  }
}
