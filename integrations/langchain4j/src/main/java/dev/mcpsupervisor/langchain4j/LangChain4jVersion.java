package dev.mcpsupervisor.langchain4j;

import dev.langchain4j.mcp.client.McpClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which langchain4j-mcp this module runs with, checked when a client is built so that an
 * unsupported one fails there with one line instead of in a tool call. Supported: 1.11 and every
 * later 1.x (tested: {@value #OLDEST} and {@value #NEWEST_TESTED}); the module uses only public
 * API, which LangChain4j keeps within a major version.
 */
final class LangChain4jVersion {

  static final String OLDEST = "1.11.0";
  static final String NEWEST_TESTED = "1.18.1";

  private static final String POM_PROPERTIES =
      "META-INF/maven/dev.langchain4j/langchain4j-mcp/pom.properties";
  private static final Pattern MAJOR_MINOR = Pattern.compile("^(\\d+)\\.(\\d+)");

  /** The installed version's verdict, read once. */
  private static final Optional<String> INSTALLED_PROBLEM =
      installed().flatMap(LangChain4jVersion::problem);

  private LangChain4jVersion() {}

  /** Throws the one line that says the installed langchain4j-mcp is not supported. */
  static void requireSupported() {
    INSTALLED_PROBLEM.ifPresent(
        problem -> {
          throw new IllegalStateException(problem);
        });
  }

  /** Why this langchain4j-mcp version (as its artifact names it: 1.11.0-beta19) cannot be used. */
  static Optional<String> problem(String version) {
    Matcher matcher = MAJOR_MINOR.matcher(version);
    boolean supported =
        matcher.find()
            && Integer.parseInt(matcher.group(1)) == 1
            && Integer.parseInt(matcher.group(2)) >= 11;
    return supported
        ? Optional.empty()
        : Optional.of(
            "mcp-supervisor-langchain4j supports LangChain4j "
                + OLDEST
                + " to 1.x (tested up to "
                + NEWEST_TESTED
                + "); found langchain4j-mcp "
                + version);
  }

  /** The version in langchain4j-mcp's jar; empty where it was repackaged without it. */
  private static Optional<String> installed() {
    try (InputStream in = McpClient.class.getClassLoader().getResourceAsStream(POM_PROPERTIES)) {
      if (in == null) {
        return Optional.empty();
      }
      Properties properties = new Properties();
      properties.load(in);
      return Optional.ofNullable(properties.getProperty("version"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
