package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line's answers that need no running gateway: usage, version and every way to get it
 * wrong.
 */
class MainTest {

  @TempDir Path dir;

  @Test
  void badConfigExitsTwoWithOneLineNamingFileFieldAndProblem() throws IOException {
    Path config = dir.resolve("servers.json");
    Files.writeString(config, "{\"mcpServers\": {\"github\": {\"comand\": \"npx\"}}}");
    Result result = run("--config", config.toString());
    assertEquals(Main.EXIT_USAGE, result.status);
    assertEquals(
        List.of(config + ": mcpServers.github.comand: unknown field; did you mean \"command\"?"),
        result.errLines());
    assertEquals("", result.out);
  }

  @Test
  void missingConfigFileExitsTwoWithOneLine() {
    Path missing = dir.resolve("absent.json");
    Result result = run("--config", missing.toString());
    assertEquals(Main.EXIT_USAGE, result.status);
    assertEquals(List.of(missing + ": file not found"), result.errLines());
  }

  @Test
  void portOutOfRangeExitsTwoWithOneLine() {
    Result result = run("--port", "65536");
    assertEquals(Main.EXIT_USAGE, result.status);
    assertEquals(List.of("--port: must be from 0 to 65535, got 65536"), result.errLines());
  }

  @Test
  void aNonLoopbackBindWithoutTokensExitsTwoUnlessAllowed() {
    Result refused = run("--host", "0.0.0.0", "--port", "65536");
    assertEquals(Main.EXIT_USAGE, refused.status);
    assertEquals(
        List.of(
            "--host: 0.0.0.0 is not a loopback address and gateway.authTokens is empty: set tokens,"
                + " or pass --allow-unauthenticated"),
        refused.errLines());
    assertEquals("", refused.out);
    // allowed, the bind check (the first) passes and the port check speaks: nothing is started
    Result allowed = run("--allow-unauthenticated", "--host", "0.0.0.0", "--port", "65536");
    assertEquals(Main.EXIT_USAGE, allowed.status);
    assertEquals(List.of("--port: must be from 0 to 65535, got 65536"), allowed.errLines());
  }

  @Test
  void unknownOrMalformedFlagsExitTwoWithOneLine() {
    Result notANumber = run("--port", "http");
    assertEquals(Main.EXIT_USAGE, notANumber.status);
    assertEquals(
        List.of(
            "mcp-supervisor: Invalid value for option '--port': 'http' is not an int (see --help)"),
        notANumber.errLines());
    Result unknown = run("--conf", "x.json");
    assertEquals(Main.EXIT_USAGE, unknown.status);
    assertEquals(
        List.of(
            "mcp-supervisor: Unknown options: '--conf', 'x.json'; did you mean --config? (see --help)"),
        unknown.errLines());
  }

  @Test
  void versionPrintsTheProjectVersion() {
    Result result = run("--version");
    assertEquals(Main.EXIT_OK, result.status);
    assertEquals("mcp-supervisor " + Versions.application() + System.lineSeparator(), result.out);
    assertTrue(Versions.application().matches("\\d+\\.\\d+\\.\\d+.*"), Versions.application());
  }

  @Test
  void helpListsEveryFlag() {
    Result result = run("--help");
    assertEquals(Main.EXIT_OK, result.status);
    for (String flag : List.of("--config", "--host", "--port", "--help", "--version")) {
      assertTrue(result.out.contains(flag), flag + " missing from:\n" + result.out);
    }
  }

  private static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Result(status, out.toString(), err.toString());
  }

  private record Result(int status, String out, String err) {
    List<String> errLines() {
      return err.lines().toList();
    }
  }
}
