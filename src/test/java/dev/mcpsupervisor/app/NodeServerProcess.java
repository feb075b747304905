package dev.mcpsupervisor.app;

import dev.mcpsupervisor.app.runtime.ChildProcesses;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A Node MCP server from src/test/node that prints {@code listening <url>} once bound, run as a
 * separate process; {@link #close()} ends it and its children by PID.
 */
final class NodeServerProcess implements AutoCloseable {

  private static final String LISTENING_PREFIX = "listening ";

  private final Process process;
  private final Path stderr;
  private final String url;

  private NodeServerProcess(Process process, Path stderr, String url) {
    this.process = process;
    this.stderr = stderr;
    this.url = url;
  }

  /**
   * Starts the command (stderr kept in {@code dir/name.err}) and reads its stdout up to the
   * listening line; fails when the process ends before printing it.
   */
  static NodeServerProcess start(Path dir, String name, List<String> command) {
    Path stderr = dir.resolve(name + ".err");
    Process process;
    try {
      process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + command, e);
    }
    // the server prints nothing else on stdout, so reading stops at this line
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    try {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.startsWith(LISTENING_PREFIX)) {
          return new NodeServerProcess(process, stderr, line.substring(LISTENING_PREFIX.length()));
        }
      }
    } catch (IOException e) {
      ChildProcesses.end(process, JarProcess.EXIT_TIMEOUT);
      throw new UncheckedIOException("cannot read the output of " + command, e);
    }
    ChildProcesses.end(process, JarProcess.EXIT_TIMEOUT);
    throw new IllegalStateException(
        "ended before listening: " + command + "\nstderr:\n" + read(stderr));
  }

  String url() {
    return url;
  }

  String stderrText() {
    return read(stderr);
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /** Ends the process and its descendants (TERM, then KILL). Idempotent. */
  @Override
  public void close() {
    ChildProcesses.end(process, JarProcess.EXIT_TIMEOUT);
  }
}
