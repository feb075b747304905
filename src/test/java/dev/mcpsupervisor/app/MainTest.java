package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.app.runtime.Versions;
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
  void anExposedBindExitsTwoWithOneLineUntilTokensOrTheWaiverAndAllowedHostsAreSet()
      throws IOException {
    Result noToken = run("--host", "0.0.0.0", "--port", "0");
    assertEquals(Main.EXIT_USAGE, noToken.status);
    assertEquals(
        List.of(
            "--host: 0.0.0.0 is not a loopback address and gateway.authTokens is empty: set tokens"
                + " (at least 32 characters each) or gateway.oauth, or pass --allow-unauthenticated"),
        noToken.errLines());
    assertEquals("", noToken.out);
    // the waiver covers the tokens only: the demo config lists no allowedHosts
    Result waived = run("--allow-unauthenticated", "--host", "0.0.0.0", "--port", "0");
    assertEquals(Main.EXIT_USAGE, waived.status);
    assertEquals(
        List.of(
            "--host: 0.0.0.0 is not a loopback address and gateway.allowedHosts is empty: list the"
                + " names clients reach the gateway by, or [\"*\"] to accept any Host header"),
        waived.errLines());
    Path config = dir.resolve("exposed.json");
    Files.writeString(
        config, "{\"mcpServers\": {}, \"gateway\": {\"host\": \"0.0.0.0\", \"port\": 0}}");
    Result fromFile = run("--config", config.toString());
    assertEquals(Main.EXIT_USAGE, fromFile.status);
    assertTrue(fromFile.errLines().get(0).startsWith("gateway.host: 0.0.0.0 is not a loopback"));
  }

  @Test
  void aShortTokenExitsTwoWithOneLineThatNeverShowsIt() throws IOException {
    Path config = dir.resolve("short.json");
    Files.writeString(
        config, "{\"mcpServers\": {}, \"gateway\": {\"authTokens\": [\"hunter2-hunter2\"]}}");
    Result result = run("--config", config.toString());
    assertEquals(Main.EXIT_USAGE, result.status);
    assertEquals(
        List.of(
            config
                + ": gateway.authTokens[0]: must be at least 32 characters, this one has 15 (e.g."
                + " openssl rand -base64 32)"),
        result.errLines());
    assertFalse(result.err.contains("hunter2"), result.err);
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
        List.of("mcp-supervisor: Unknown option: '--conf'; did you mean --config? (see --help)"),
        unknown.errLines());
  }

  @Test
  void aNegativeWarmupCountExitsTwoWithOneLine() {
    Result result = run("--warmup-calls", "-1");
    assertEquals(Main.EXIT_USAGE, result.status);
    assertEquals(List.of("--warmup-calls: must be at least 0, got -1"), result.errLines());
    assertEquals("", result.out);
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
    for (String flag :
        List.of("--config", "--host", "--port", "--warmup-calls", "--help", "--version")) {
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
