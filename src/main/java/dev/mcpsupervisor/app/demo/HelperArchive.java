package dev.mcpsupervisor.app.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The class-data archive of the demo server, a JVM of its own started from the application's jar,
 * which without one spends most of its start loading and verifying the MCP SDK's and Jackson's
 * classes (about 1.5 s of CPU: the larger part of the stdio front's first answer with the demo
 * server). {@code bin/mcp-supervisor} says where it goes with {@value #PROPERTY} (its own cache's
 * path without the extension) and records it with {@link #main} after its own recording run;
 * without the property (plain {@code java -jar}) or before it is recorded, the demo server runs
 * without one. An archive the JVM cannot use is ignored, never fatal.
 *
 * <p>Recorded by a run of its own rather than at the demo server's exit in the gateway: the gateway
 * ends its servers with TERM and KILLs them 2 s later, and on a busy machine the dump takes longer.
 */
public final class HelperArchive {

  public static final String PROPERTY = "mcp-supervisor.helperArchive";

  /** A bound on the recording run (a demo server that hangs must not hang the launcher). */
  private static final long RECORDING_SECONDS = 120;

  private static final ObjectMapper JSON = new ObjectMapper();

  private HelperArchive() {}

  /** The options that map the archive of the helper with {@code mainClass}, once recorded. */
  static List<String> options(String mainClass) {
    return options(System.getProperty(PROPERTY), mainClass, Files::isRegularFile);
  }

  /**
   * @param prefix the launcher's path for its caches, without the extension; null: none
   */
  public static List<String> options(String prefix, String mainClass, Predicate<Path> recorded) {
    if (prefix == null || prefix.isBlank() || !recorded.test(archive(prefix, mainClass))) {
      return List.of();
    }
    return List.of(
        "-XX:SharedArchiveFile=" + archive(prefix, mainClass),
        "-Xshare:auto",
        // the JVM's warnings (an archive it cannot use) on stderr: stdout is the protocol's
        "-Xlog:disable",
        "-Xlog:all=warning:stderr");
  }

  public static Path archive(String prefix, String mainClass) {
    return Path.of(prefix + "-" + mainClass.substring(mainClass.lastIndexOf('.') + 1) + ".jsa");
  }

  /** {@link #record}s the archive at {@value #PROPERTY}; exits 0 when it is there. */
  public static void main(String[] args) throws IOException, InterruptedException {
    String prefix = System.getProperty(PROPERTY);
    if (prefix == null || prefix.isBlank()) {
      System.err.println("mcp-supervisor: -D" + PROPERTY + "=PATH_PREFIX is required");
      System.exit(2);
    }
    System.exit(record(prefix) ? 0 : 1);
  }

  /**
   * Records the demo server's archive beside {@code prefix} unless it is there: starts the demo
   * server as the demo configuration does, with {@code -XX:ArchiveClassesAtExit}, has it answer
   * what a client's start asks (initialize, tools/list, a call), closes its stdin and waits for its
   * exit and the dump, written under a name of its own and moved into place when complete. True
   * when the archive is there.
   */
  static boolean record(String prefix) throws IOException, InterruptedException {
    Path archive = archive(prefix, DemoServer.class.getName());
    if (Files.isRegularFile(archive)) {
      return true;
    }
    Path partial =
        archive.resolveSibling(
            archive.getFileName() + "." + ProcessHandle.current().pid() + ".partial");
    List<String> command = new ArrayList<>(DemoConfig.demoServerCommand());
    // (-Xlog:cds=off: the dump's warnings name the classes it leaves out; none is an error)
    command.addAll(1, List.of("-XX:ArchiveClassesAtExit=" + partial, "-Xlog:cds=off"));
    Process demo =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    boolean answered;
    try {
      answered = train(demo);
    } finally {
      demo.getOutputStream().close();
    }
    boolean exited = demo.waitFor(RECORDING_SECONDS, TimeUnit.SECONDS);
    if (!exited) {
      demo.destroyForcibly().waitFor();
    }
    boolean dumped = Files.isRegularFile(partial) && Files.size(partial) > 0;
    if (answered && exited && demo.exitValue() == 0 && dumped) {
      Files.move(
          partial, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      return true;
    }
    Files.deleteIfExists(partial);
    return false;
  }

  /** A client's start: initialize, initialized, tools/list and a call; true once all answered. */
  private static boolean train(Process demo) throws IOException {
    OutputStream in = demo.getOutputStream();
    String[] messages = {
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
          + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"mcp-supervisor\","
          + "\"version\":\"0\"}}}",
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
          + "\"arguments\":{\"message\":\"hello\"}}}"
    };
    BufferedReader out =
        new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8));
    for (String message : messages) {
      in.write((message + "\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
      if (message.contains("\"id\"") && !awaitAnswer(out)) {
        return false;
      }
    }
    return true;
  }

  /** Reads up to the next answer (a line with a result); false when the output ends first. */
  private static boolean awaitAnswer(BufferedReader out) throws IOException {
    for (String line = out.readLine(); line != null; line = out.readLine()) {
      if (line.startsWith("{") && JSON.readTree(line).has("result")) {
        return true;
      }
    }
    return false;
  }
}
