package dev.mcpsupervisor.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mcpsupervisor.fixture.DocSnippets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The LangChain4j example of docs/embedding.md compiles as written with this module. */
class DocExampleTest {

  @Test
  void theLangChain4jExampleCompiles(@TempDir Path out) {
    Path guide = Path.of(System.getProperty("basedir", "."), "../../docs/embedding.md");
    String example = DocSnippets.marked(guide).get("Assistant.java");

    assertEquals(List.of(), DocSnippets.compile(Map.of("Assistant.java", example), out));
  }
}
