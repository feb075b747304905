package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.app.demo.DemoConfig;
import dev.mcpsupervisor.app.demo.DemoServer;
import dev.mcpsupervisor.app.demo.HelperArchive;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo server's class-data archive recorded as {@code bin/mcp-supervisor} records it (the jar's
 * {@link HelperArchive} main, on the JDK running this test), then mapped by the demo server started
 * with the options the demo configuration gives it: {@code -Xshare:on} makes a JVM that cannot map
 * the archive refuse to start, so an answer means the archive was used.
 */
@Timeout(300)
class HelperArchiveIT {

  @TempDir Path temp;

  @Test
  void theRecordedArchiveIsOneTheDemoServerMaps() throws Exception {
    String prefix = temp.resolve("mcp-supervisor-1").toString();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process recording =
        new ProcessBuilder(
                java,
                "-D" + HelperArchive.PROPERTY + "=" + prefix,
                "-cp",
                JarProcess.jar().toString(),
                HelperArchive.class.getName())
            .redirectErrorStream(true)
            .redirectOutput(temp.resolve("recording.log").toFile())
            .start();
    assertTrue(recording.waitFor(240, TimeUnit.SECONDS), "the recording did not finish");
    assertEquals(0, recording.exitValue(), Files.readString(temp.resolve("recording.log")));
    Path archive = HelperArchive.archive(prefix, DemoServer.class.getName());
    try (Stream<Path> files = Files.list(temp)) {
      assertEquals(
          List.of(archive),
          files.filter(file -> !file.toString().endsWith(".log")).toList(),
          "the archive, and no partial file");
    }

    // the demo configuration's command, run from the jar (this JVM's class path is the build's)
    List<String> command = new ArrayList<>(DemoConfig.demoServerCommand());
    command.set(command.indexOf("-cp") + 1, JarProcess.jar().toString());
    command.addAll(1, HelperArchive.options(prefix, DemoServer.class.getName(), Files::exists));
    command.add(1, "-Xshare:on");
    Process demo =
        new ProcessBuilder(command).redirectError(temp.resolve("err.log").toFile()).start();
    try {
      demo.getOutputStream()
          .write(
              ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                      + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                      + "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}\n")
                  .getBytes(StandardCharsets.UTF_8));
      demo.getOutputStream().flush();
      String answer =
          new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8))
              .readLine();
      assertTrue(
          answer != null && answer.startsWith("{") && answer.contains("\"result\""),
          answer + "; stderr: " + Files.readString(temp.resolve("err.log")));
    } finally {
      demo.getOutputStream().close();
      if (!demo.waitFor(60, TimeUnit.SECONDS)) {
        demo.destroyForcibly().waitFor();
      }
    }
  }
}
