package dev.mcpsupervisor.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class SupportedVersionsTest {

  @Test
  void bootFourWithSpringAiFromTwoPointZeroPointOneIsSupported() {
    assertEquals(Optional.empty(), SupportedVersions.problem("4.0.7", "2.0.1"));
    assertEquals(Optional.empty(), SupportedVersions.problem("4.1.2", "2.0.1"));
    assertEquals(Optional.empty(), SupportedVersions.problem("4.2.0-M1", "2.1.0"));
  }

  @Test
  void anotherGenerationIsRefusedInOneLineNamingBoth() {
    String boot3 = SupportedVersions.problem("3.5.8", "1.1.2").orElseThrow();
    assertEquals(
        "mcp-supervisor-spring-ai supports Spring Boot 4.x with Spring AI 2.x (2.0.1 or later); this"
            + " application has Spring Boot 3.5.8 and Spring AI 1.1.2",
        boot3);
    assertTrue(SupportedVersions.problem("4.0.7", "2.0.0").isPresent());
    assertTrue(SupportedVersions.problem("4.0.7", "2.0.0-M8").isPresent());
    assertTrue(SupportedVersions.problem("5.0.0", "2.0.1").isPresent());
  }

  @Test
  void anUnreadableVersionIsNotHeldAgainstTheApplication() {
    assertEquals(Optional.empty(), SupportedVersions.problem(null, null));
    assertEquals(Optional.empty(), SupportedVersions.problem("4.0.7", "unknown"));
  }
}
