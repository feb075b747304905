package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/mcp-supervisor, run with a stand-in {@code java} (JAVA_HOME/bin/java, a script that records
 * its arguments and, given -XX:ArchiveClassesAtExit, writes that file as the JVM does at exit).
 */
class LauncherScriptTest {

  private static final Path LAUNCHER =
      Path.of(System.getProperty("basedir", "."), "..", "bin", "mcp-supervisor");
  private static final String FAKE_JAVA =
      """
      #!/usr/bin/env bash
      if [ "$1" = -version ]; then echo 'openjdk version "17" (stand-in)' >&2; exit 0; fi
      printf '%s\\n' "$*" >>"$FAKE_LOG"
      if [ -n "${FAKE_STDIN:-}" ]; then read -r line || true; printf 'stdin: %s\\n' "$line" >>"$FAKE_LOG"; fi
      for argument in "$@"; do
        case "$argument" in
          -XX:ArchiveClassesAtExit=*) [ -n "${FAKE_NO_DUMP:-}" ] || echo archive >"${argument#*=}" ;;
        esac
      done
      exit "${FAKE_STATUS:-0}"
      """;

  @TempDir Path temp;
  private Path javaHome;
  private Path jar;
  private Path cacheDir;
  private Path log;

  /** The launcher's stdin, when a test gives one. */
  private Path builderInput;

  @BeforeEach
  void fakeJavaAndJar() throws IOException {
    javaHome = temp.resolve("jdk");
    Path java = Files.createDirectories(javaHome.resolve("bin")).resolve("java");
    Files.writeString(java, FAKE_JAVA);
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwx------"));
    jar = Files.writeString(temp.resolve("mcp-supervisor.jar"), "not a real jar");
    cacheDir = temp.resolve("cds");
    log = temp.resolve("java-calls.log");
  }

  @Test
  void theFirstGatewayRunRecordsTheArchiveAndLaterRunsUseIt() throws Exception {
    assertEquals(0, launch(Map.of(), "--port", "0"));
    List<Path> archives = archives();
    assertEquals(1, archives.size(), "one archive after the first run: " + archives);
    Path archive = archives.get(0);
    assertTrue(
        archive.getFileName().toString().matches("mcp-supervisor-\\d+\\.jsa"), archive.toString());

    assertEquals(0, launch(Map.of(), "--port", "0"));
    List<String> calls = Files.readAllLines(log);
    assertEquals(2, calls.size(), calls.toString());
    assertTrue(calls.get(0).startsWith("-XX:ArchiveClassesAtExit=" + archive + "."), calls.get(0));
    assertTrue(calls.get(0).endsWith(" -jar " + jar + " --port 0"), calls.get(0));
    assertEquals(
        "-XX:SharedArchiveFile=" + archive + " -Xshare:auto -jar " + jar + " --port 0",
        calls.get(1));
    assertEquals(List.of(archive), archives());
  }

  @Test
  void aRunThatWritesNoArchiveLeavesNoFileAndKeepsItsExitStatus() throws Exception {
    assertEquals(3, launch(Map.of("FAKE_NO_DUMP", "1", "FAKE_STATUS", "3"), "--port", "0"));
    assertEquals(List.of(), archives());
    try (Stream<Path> files = Files.list(cacheDir)) {
      assertEquals(0, files.count(), "no partial archive left behind");
    }
  }

  @Test
  void benchDoesNotRecordAnArchive() throws Exception {
    assertEquals(0, launch(Map.of(), "bench", "http://127.0.0.1:1/mcp"));
    assertEquals(List.of("-jar " + jar + " bench http://127.0.0.1:1/mcp"), Files.readAllLines(log));
    assertFalse(Files.exists(cacheDir));
  }

  @Test
  void aRebuiltJarRecordsANewArchiveInPlaceOfTheOld() throws Exception {
    assertEquals(0, launch(Map.of(), "--port", "0"));
    Path old = archives().get(0);
    Files.setLastModifiedTime(jar, FileTime.from(Instant.now().plusSeconds(60)));
    assertEquals(0, launch(Map.of(), "--port", "0"));
    assertTrue(Files.readAllLines(log).get(1).startsWith("-XX:ArchiveClassesAtExit="));
    List<Path> archives = archives();
    assertEquals(1, archives.size(), archives.toString());
    assertFalse(archives.contains(old), "the old jar's archive is gone");
  }

  /** The stdio front's client talks on stdin: the recording run (a background job) gets it too. */
  @Test
  void everyRunGetsTheLaunchersStdin() throws Exception {
    Path stdin = Files.writeString(temp.resolve("stdin"), "{\"jsonrpc\":\"2.0\"}\n");
    builderInput = stdin;
    assertEquals(0, launch(Map.of("FAKE_STDIN", "1"), "stdio"));
    assertEquals(0, launch(Map.of("FAKE_STDIN", "1"), "stdio"));
    List<String> calls = Files.readAllLines(log);
    assertEquals(4, calls.size(), calls.toString());
    assertTrue(calls.get(0).contains("-XX:ArchiveClassesAtExit="), "recorded: " + calls);
    assertTrue(calls.get(2).contains("-XX:SharedArchiveFile="), "then used: " + calls);
    assertEquals("stdin: {\"jsonrpc\":\"2.0\"}", calls.get(1));
    assertEquals("stdin: {\"jsonrpc\":\"2.0\"}", calls.get(3));
  }

  @Test
  void cdsOffRunsPlainJavaJar() throws Exception {
    assertEquals(0, launch(Map.of("MCP_SUPERVISOR_CDS", "off"), "--port", "0"));
    assertEquals(List.of("-jar " + jar + " --port 0"), Files.readAllLines(log));
  }

  private int launch(Map<String, String> environment, String... arguments) throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(
            Stream.concat(Stream.of("bash", LAUNCHER.toString()), Stream.of(arguments)).toList());
    builder.environment().putAll(environment);
    builder.environment().put("JAVA_HOME", javaHome.toString());
    builder.environment().put("MCP_SUPERVISOR_JAR", jar.toString());
    builder.environment().put("MCP_SUPERVISOR_CDS_DIR", cacheDir.toString());
    builder.environment().put("FAKE_LOG", log.toString());
    builder.environment().remove("JAVA_OPTS");
    builder.redirectErrorStream(true).redirectOutput(temp.resolve("launcher.out").toFile());
    if (builderInput != null) {
      builder.redirectInput(builderInput.toFile());
    }
    Process process = builder.start();
    assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the launcher did not finish");
    return process.exitValue();
  }

  private List<Path> archives() throws IOException {
    if (!Files.isDirectory(cacheDir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(cacheDir)) {
      return files.filter(file -> file.toString().endsWith(".jsa")).toList();
    }
  }
}
