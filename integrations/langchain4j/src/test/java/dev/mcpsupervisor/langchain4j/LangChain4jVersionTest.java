package dev.mcpsupervisor.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class LangChain4jVersionTest {

  @Test
  void everyOneFrom1Point11On1IsSupported() {
    assertEquals(Optional.empty(), LangChain4jVersion.problem("1.11.0-beta19"));
    assertEquals(Optional.empty(), LangChain4jVersion.problem("1.18.1-beta28"));
    assertEquals(Optional.empty(), LangChain4jVersion.problem("1.25.0"));
  }

  @Test
  void anOlderOrNextMajorIsRefusedInOneLine() {
    for (String version : new String[] {"1.10.0-beta18", "0.36.2", "2.0.0", "unknown"}) {
      String problem = LangChain4jVersion.problem(version).orElseThrow();
      assertTrue(problem.endsWith("found langchain4j-mcp " + version), problem);
      assertTrue(problem.contains("supports LangChain4j 1.11.0 to 1.x"), problem);
      assertEquals(-1, problem.indexOf('\n'));
    }
  }

  @Test
  void theInstalledOneIsSupported() {
    LangChain4jVersion.requireSupported();
  }
}
