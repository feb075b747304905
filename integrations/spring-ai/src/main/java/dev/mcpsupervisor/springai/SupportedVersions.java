package dev.mcpsupervisor.springai;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Spring Boot and Spring AI versions this module is built and tested for: Boot 4.x with Spring
 * AI 2.x from 2.0.1. Anything else is refused when the auto-configuration starts, in one line,
 * rather than failing on a missing method in the middle of a call. A version that cannot be read (a
 * jar without its manifest) is not held against the application.
 */
final class SupportedVersions {

  static final String SUPPORTED = "Spring Boot 4.x with Spring AI 2.x (2.0.1 or later)";

  private static final Pattern NUMBERS = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+)");

  private SupportedVersions() {}

  /** Why these versions are not supported, or empty when they are (or cannot be read). */
  static Optional<String> problem(String springBoot, String springAi) {
    int[] boot = numbers(springBoot);
    int[] ai = numbers(springAi);
    boolean bootOk = boot == null || boot[0] == 4;
    boolean aiOk = ai == null || (ai[0] == 2 && (ai[1] > 0 || ai[2] >= 1));
    if (bootOk && aiOk) {
      return Optional.empty();
    }
    return Optional.of(
        "mcp-supervisor-spring-ai supports "
            + SUPPORTED
            + "; this application has Spring Boot "
            + springBoot
            + " and Spring AI "
            + springAi);
  }

  private static int[] numbers(String version) {
    if (version == null) {
      return null;
    }
    Matcher matcher = NUMBERS.matcher(version);
    if (!matcher.lookingAt()) {
      return null;
    }
    return new int[] {
      Integer.parseInt(matcher.group(1)),
      Integer.parseInt(matcher.group(2)),
      Integer.parseInt(matcher.group(3))
    };
  }
}
