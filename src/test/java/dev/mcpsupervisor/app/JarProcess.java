package dev.mcpsupervisor.app;

import dev.mcpsupervisor.app.runtime.ChildProcesses;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The application's runnable jar as a separate process ({@code java -jar
 * src/target/mcp-supervisor.jar ...}), exactly as a user starts it. Its stdout and stderr are read
 * to the end on daemon threads and kept as lines. {@link #close()} ends it and everything it
 * started, whatever state it is in.
 */
final class JarProcess implements AutoCloseable {

  static final String LISTENING_PREFIX = "mcp-supervisor listening on ";
  // a bound for a loaded CI machine: three jar processes start at once beside other builds
  static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);

  private final Process process;
  private final List<String> stdout = new ArrayList<>();
  private final List<String> stderr = new ArrayList<>();
  private final CompletableFuture<String> listening = new CompletableFuture<>();
  private final CompletableFuture<Void> outputsEnded;

  private JarProcess(Process process) {
    this.process = process;
    CompletableFuture<Void> stdoutEnded =
        drain(process.getInputStream(), "jar-stdout-" + process.pid(), stdout, true);
    CompletableFuture<Void> stderrEnded =
        drain(process.getErrorStream(), "jar-stderr-" + process.pid(), stderr, false);
    outputsEnded = CompletableFuture.allOf(stdoutEnded, stderrEnded);
  }

  /** The jar failsafe built; the path comes from the pom. */
  static Path jar() {
    String path = System.getProperty("mcp-supervisor.jar");
    if (path == null || !Files.isRegularFile(Path.of(path))) {
      throw new IllegalStateException(
          "no runnable jar at " + path + " (run the *IT tests with mvn verify)");
    }
    return Path.of(path);
  }

  /** Without the warm-up, which would add seconds of CPU to every test's start. */
  static JarProcess start(String... args) {
    return startWithJvmOptions(List.of(warmupCalls(0)), args);
  }

  /** {@code -D} option for a warm-up of that many calls (0: none). */
  static String warmupCalls(int calls) {
    return "-Dmcp-supervisor.application.warmup.calls=" + calls;
  }

  /**
   * bin/mcp-supervisor (the README's start command) on the built jar, with its cache in {@code
   * cacheDir} and {@code JAVA_OPTS}; the java the launcher picks itself (no {@code JAVA_HOME}).
   */
  static JarProcess launch(Path cacheDir, String javaOptions, String... args) {
    List<String> command = new ArrayList<>();
    command.add(
        Path.of(System.getProperty("basedir", "."), "..", "bin", "mcp-supervisor").toString());
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.PIPE);
    builder.environment().remove("JAVA_HOME");
    builder.environment().put("MCP_SUPERVISOR_JAR", jar().toString());
    builder.environment().put("MCP_SUPERVISOR_CDS_DIR", cacheDir.toString());
    builder.environment().put("JAVA_OPTS", javaOptions);
    try {
      return new JarProcess(builder.start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + command, e);
    }
  }

  static JarProcess startWithJvmOptions(List<String> jvmOptions, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-jar");
    command.add(jar().toString());
    command.addAll(List.of(args));
    try {
      return new JarProcess(
          new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.PIPE).start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + command, e);
    }
  }

  /**
   * Waits (bounded) for the listening line and answers its URL, e.g. {@code
   * http://127.0.0.1:41234/mcp}.
   */
  String awaitListening() {
    return awaitListening(START_TIMEOUT);
  }

  /** {@link #awaitListening()} within {@code bound}. */
  String awaitListening(Duration bound) {
    try {
      return listening.get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      throw new IllegalStateException(
          "no listening line within " + bound + "; stderr:\n" + stderrText(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Waits (bounded) for the process to end and for its output to be read; answers its exit status.
   */
  int awaitExit() {
    return awaitExit(EXIT_TIMEOUT);
  }

  /** {@link #awaitExit()} within {@code bound}. */
  int awaitExit(Duration bound) {
    try {
      if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(
            "still running after " + bound + "; stderr:\n" + stderrText());
      }
      outputsEnded.get(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("output not read to the end", e);
    }
  }

  Process process() {
    return process;
  }

  List<String> stdoutLines() {
    synchronized (stdout) {
      return List.copyOf(stdout);
    }
  }

  List<String> stderrLines() {
    synchronized (stderr) {
      return List.copyOf(stderr);
    }
  }

  String stderrText() {
    return String.join("\n", stderrLines());
  }

  /**
   * Ends the process and its descendants (TERM, then KILL what is left after a grace period).
   * Idempotent.
   */
  @Override
  public void close() {
    ChildProcesses.end(process, EXIT_TIMEOUT);
  }

  private CompletableFuture<Void> drain(
      InputStream stream, String threadName, List<String> lines, boolean isStdout) {
    CompletableFuture<Void> ended = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  synchronized (lines) {
                    lines.add(line);
                  }
                  if (isStdout && line.startsWith(LISTENING_PREFIX)) {
                    listening.complete(line.substring(LISTENING_PREFIX.length()));
                  }
                }
              } catch (IOException e) {
                // the stream closes when the process dies
              } finally {
                if (isStdout) {
                  listening.completeExceptionally(
                      new IllegalStateException("stdout ended before listening"));
                }
                ended.complete(null);
              }
            },
            threadName);
    reader.setDaemon(true);
    reader.start();
    return ended;
  }
}
