package dev.mcpsupervisor.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mcpsupervisor.fixture.DocSnippets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Spring AI example of docs/embedding.md compiles as written with this module (and Spring AI's
 * ChatClient, which every model starter brings).
 */
class DocExampleTest {

  @Test
  void theSpringAiExampleCompiles(@TempDir Path out) {
    Path guide = Path.of(System.getProperty("basedir", "."), "../../docs/embedding.md");
    String example = DocSnippets.marked(guide).get("Agent.java");

    assertEquals(List.of(), DocSnippets.compile(Map.of("Agent.java", example), out));
  }
}
