package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.app.demo.HelperArchive;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/mcp-supervisor, run with a stand-in {@code java} (JAVA_HOME/bin/java, a script that records
 * its arguments and, given -XX:ArchiveClassesAtExit, writes that file as the JVM does at exit; as a
 * Java 25, given -XX:AOTConfiguration or -XX:AOTCache, writes those as the JVM does; run as {@link
 * HelperArchive}, writes the demo server's archive).
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
          -XX:AOTMode=record) record=1 ;;
          -XX:AOTMode=create) create=1 ;;
          -XX:AOTConfiguration=*) training="${argument#*=}" ;;
          -XX:AOTCache=*) cache="${argument#*=}" ;;
          -Dmcp-supervisor.helperArchive=*) helper="${argument#*=}" ;;
          dev.mcpsupervisor.app.demo.HelperArchive) echo archive >"$helper-DemoServer.jsa" ;;
        esac
      done
      echo 'the gateway on stdout'
      if [ -n "${record:-}" ] && [ -z "${FAKE_NO_DUMP:-}" ]; then
        echo training >"$training"; echo " AOTConfiguration recorded: $training"
      fi
      if [ -n "${create:-}" ]; then grep -q training "$training" && echo cache >"$cache"; fi
      exit "${FAKE_STATUS:-0}"
      """;

  @TempDir Path temp;
  private Path javaHome;
  private Path jar;
  private Path cacheDir;
  private Path log;

  /** The launcher's stdin, when a test gives one. */
  private Path builderInput;

  /** The launcher's working directory, when a test gives one. */
  private Path workingDirectory;

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
    assertEquals(
        3, calls.size(), "the recording run, the demo server's, the run with it: " + calls);
    String helpers = helperProperty(archive);
    assertTrue(calls.get(0).startsWith("-XX:ArchiveClassesAtExit=" + archive + "."), calls.get(0));
    assertTrue(calls.get(0).endsWith(helpers + " -jar " + jar + " --port 0"), calls.get(0));
    assertEquals(
        helpers + " -cp " + jar + " dev.mcpsupervisor.app.demo.HelperArchive", calls.get(1));
    assertEquals(
        "-XX:SharedArchiveFile="
            + archive
            + " -Xshare:auto "
            + helpers
            + " -jar "
            + jar
            + " --port 0",
        calls.get(2));
    assertEquals(List.of(archive), archives());
    assertEquals(List.of(demoServerArchive(archive)), helperArchives());
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
    assertTrue(Files.readAllLines(log).get(2).startsWith("-XX:ArchiveClassesAtExit="));
    List<Path> archives = archives();
    assertEquals(1, archives.size(), archives.toString());
    assertFalse(archives.contains(old), "the old jar's archive is gone");
    assertEquals(
        List.of(demoServerArchive(archives.get(0))),
        helperArchives(),
        "the demo server's archive of the old jar is gone too");
  }

  /** The stdio front's client talks on stdin: the recording run (a background job) gets it too. */
  @Test
  void everyRunGetsTheLaunchersStdin() throws Exception {
    Path stdin = Files.writeString(temp.resolve("stdin"), "{\"jsonrpc\":\"2.0\"}\n");
    builderInput = stdin;
    assertEquals(0, launch(Map.of("FAKE_STDIN", "1"), "stdio"));
    assertEquals(0, launch(Map.of("FAKE_STDIN", "1"), "stdio"));
    List<String> calls = Files.readAllLines(log);
    assertEquals(6, calls.size(), "each run, then what it read, the demo server's too: " + calls);
    assertTrue(calls.get(0).contains("-XX:ArchiveClassesAtExit="), "recorded: " + calls);
    assertTrue(calls.get(4).contains("-XX:SharedArchiveFile="), "then used: " + calls);
    assertEquals("stdin: {\"jsonrpc\":\"2.0\"}", calls.get(1));
    assertEquals("stdin: ", calls.get(3), "the demo server's recording reads none of it");
    assertEquals("stdin: {\"jsonrpc\":\"2.0\"}", calls.get(5));
  }

  @Test
  void onJava25TheFirstRunTrainsTheLauncherAssemblesTheAotCacheAndLaterRunsUseIt()
      throws Exception {
    Files.writeString(javaHome.resolve("release"), "JAVA_VERSION=\"25.0.3\"\n");
    assertEquals(0, launch(Map.of(), "--port", "0"));
    List<Path> caches = files(".aot");
    assertEquals(1, caches.size(), "one cache after the first run: " + caches);
    Path cache = caches.get(0);
    assertEquals(0, launch(Map.of(), "--port", "0"));
    List<String> calls = Files.readAllLines(log);
    assertEquals(
        4, calls.size(), "the training run, the assembly, the demo server's, the run: " + calls);
    String options =
        "-XX:+UseCompactObjectHeaders --sun-misc-unsafe-memory-access=allow -Xlog:disable ";
    assertTrue(
        calls
            .get(0)
            .startsWith(
                options
                    + "-Xlog:all=warning,aot=off,cds=off:stderr"
                    + " -XX:AOTMode=record -XX:AOTConfiguration="
                    + cache
                    + "."),
        calls.get(0));
    assertTrue(calls.get(0).endsWith(" -jar " + jar + " --port 0"), calls.get(0));
    assertTrue(calls.get(1).startsWith(options + "-XX:AOTMode=create"), calls.get(1));
    assertEquals(
        options
            + "-Xlog:all=warning:stderr -XX:AOTCache="
            + cache
            + " "
            + helperProperty(cache)
            + " -jar "
            + jar
            + " --port 0",
        calls.get(3));
    assertEquals(List.of(), archives(), "no class-data archive of the gateway's on 25");
    try (Stream<Path> files = Files.list(cacheDir)) {
      assertEquals(
          Set.of(cache, demoServerArchive(cache)),
          files.collect(Collectors.toSet()),
          "no training file left behind");
    }
    assertEquals(
        List.of("the gateway on stdout", "the gateway on stdout"),
        Files.readAllLines(temp.resolve("launcher.out")),
        "the training run's line about its file is not on stdout (the stdio front's)");
  }

  @Test
  void withoutJavaHomeTheNewestJdk25InTheJvmDirectoryIsUsed() throws Exception {
    Path jvms = Files.createDirectories(temp.resolve("jvm"));
    Files.writeString(javaHome.resolve("release"), "JAVA_VERSION=\"25.0.3\"\n");
    Files.move(javaHome, jvms.resolve("temurin-25-jdk-amd64"));
    Path jdk17 = Files.createDirectories(jvms.resolve("java-17-openjdk-amd64").resolve("bin"));
    Files.writeString(jdk17.resolveSibling("release"), "JAVA_VERSION=\"17.0.15\"\n");
    Files.copy(jvms.resolve("temurin-25-jdk-amd64/bin/java"), jdk17.resolve("java"));
    javaHome = null;
    assertEquals(0, launch(Map.of("MCP_SUPERVISOR_JVM_DIR", jvms.toString()), "--port", "0"));
    assertTrue(
        Files.readAllLines(log).get(0).contains("-XX:AOTMode=record"),
        "the JDK 25 ran: " + Files.readAllLines(log));
    assertEquals(1, files(".aot").size());
  }

  @Test
  void withoutJavaHomeOrAJdk25TheJavaOnThePathIsUsedAndItsHomeSaysItsVersion() throws Exception {
    Files.writeString(javaHome.resolve("release"), "JAVA_VERSION=\"25.0.3\"\n");
    Path onPath = Files.createDirectories(temp.resolve("path"));
    Files.createSymbolicLink(onPath.resolve("java"), javaHome.resolve("bin/java"));
    Path noJdks = Files.createDirectories(temp.resolve("no-jvms"));
    javaHome = null;
    Map<String, String> environment =
        Map.of(
            "MCP_SUPERVISOR_JVM_DIR",
            noJdks.toString(),
            "PATH",
            onPath + ":" + System.getenv("PATH"));
    assertEquals(0, launch(environment, "--port", "0"));
    assertTrue(
        Files.readAllLines(log).get(0).contains("-XX:AOTMode=record"),
        "the release file beside the linked java's bin said 25: " + Files.readAllLines(log));
  }

  @Test
  void theJarNamesOneCacheWhicheverPathItIsGivenBy() throws Exception {
    assertEquals(0, launch(Map.of(), "--port", "0"));
    workingDirectory = temp;
    assertEquals(0, launch(Map.of("MCP_SUPERVISOR_JAR", "mcp-supervisor.jar"), "--port", "0"));
    Files.createDirectories(temp.resolve("sub"));
    assertEquals(
        0, launch(Map.of("MCP_SUPERVISOR_JAR", "sub/../mcp-supervisor.jar"), "--port", "0"));
    List<String> calls = Files.readAllLines(log);
    assertEquals(4, calls.size(), "one recording, the demo server's archive, two runs: " + calls);
    assertEquals(1, archives().size(), archives().toString());
    assertTrue(calls.get(2).startsWith("-XX:SharedArchiveFile="), calls.get(2));
    assertTrue(calls.get(3).startsWith("-XX:SharedArchiveFile="), calls.get(3));
    assertTrue(calls.get(3).endsWith(" -jar sub/../mcp-supervisor.jar --port 0"), calls.get(3));
  }

  /** One client's front needs no C2: its compilations would delay the first answer. */
  @Test
  void theDesktopFrontsRunWithC1OnlyUnlessJavaOptsSayOtherwise() throws Exception {
    Map<String, String> plain = Map.of("MCP_SUPERVISOR_CDS", "off");
    assertEquals(0, launch(plain, "stdio"));
    assertEquals(0, launch(plain, "connect", "http://127.0.0.1:1/mcp"));
    assertEquals(0, launch(plain, "--port", "0"));
    Map<String, String> overridden =
        Map.of("MCP_SUPERVISOR_CDS", "off", "JAVA_OPTS", "-XX:TieredStopAtLevel=4");
    assertEquals(0, launch(overridden, "stdio"));
    assertEquals(
        List.of(
            "-XX:TieredStopAtLevel=1 -jar " + jar + " stdio",
            "-XX:TieredStopAtLevel=1 -jar " + jar + " connect http://127.0.0.1:1/mcp",
            "-jar " + jar + " --port 0",
            "-XX:TieredStopAtLevel=1 -XX:TieredStopAtLevel=4 -jar " + jar + " stdio"),
        Files.readAllLines(log));
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
    if (javaHome != null) {
      builder.environment().put("JAVA_HOME", javaHome.toString());
    } else {
      builder.environment().remove("JAVA_HOME");
    }
    builder.environment().putIfAbsent("MCP_SUPERVISOR_JAR", jar.toString());
    builder.environment().put("MCP_SUPERVISOR_CDS_DIR", cacheDir.toString());
    builder.environment().put("FAKE_LOG", log.toString());
    if (!environment.containsKey("JAVA_OPTS")) {
      builder.environment().remove("JAVA_OPTS");
    }
    builder
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(temp.resolve("launcher.out").toFile()));
    if (builderInput != null) {
      builder.redirectInput(builderInput.toFile());
    }
    if (workingDirectory != null) {
      builder.directory(workingDirectory.toFile());
    }
    Process process = builder.start();
    assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the launcher did not finish");
    return process.exitValue();
  }

  /** The gateway's class-data archives. */
  private List<Path> archives() throws IOException {
    return files(".jsa").stream()
        .filter(file -> !file.toString().endsWith("-DemoServer.jsa"))
        .toList();
  }

  private List<Path> helperArchives() throws IOException {
    return files("-DemoServer.jsa");
  }

  /** The launcher's property for the demo server's archive, beside the gateway's {@code cache}. */
  private static String helperProperty(Path cache) {
    return "-D" + HelperArchive.PROPERTY + "=" + withoutExtension(cache);
  }

  private static Path demoServerArchive(Path cache) {
    return Path.of(withoutExtension(cache) + "-DemoServer.jsa");
  }

  private static String withoutExtension(Path cache) {
    String name = cache.toString();
    return name.substring(0, name.lastIndexOf('.'));
  }

  private List<Path> files(String suffix) throws IOException {
    if (!Files.isDirectory(cacheDir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(cacheDir)) {
      return files.filter(file -> file.toString().endsWith(suffix)).toList();
    }
  }
}
