package dev.mcpsupervisor.app.chaos;

import dev.mcpsupervisor.app.runtime.ChildProcesses;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A process the chaos runner started: its stdout is read for a readiness line (then drained), its
 * stderr goes to a file. Stopped by its own pid: SIGTERM, then SIGKILL after a grace period; its
 * descendants are listed before the stop and killed by pid if they outlive it.
 */
final class ManagedProcess implements AutoCloseable {

  private final Process process;
  private final CompletableFuture<String> ready = new CompletableFuture<>();

  private ManagedProcess(Process process, String readyPrefix) {
    this.process = process;
    Thread reader = new Thread(() -> drain(readyPrefix), "chaos-stdout-" + process.pid());
    reader.setDaemon(true);
    reader.start();
    process.onExit().thenRun(() -> ready.completeExceptionally(new IOException(exited())));
  }

  /** Starts {@code command}; {@link #awaitReady} answers the rest of the line after the prefix. */
  static ManagedProcess start(List<String> command, String readyPrefix, Path stderr)
      throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectInput(ProcessBuilder.Redirect.PIPE)
            .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()));
    return new ManagedProcess(builder.start(), readyPrefix);
  }

  long pid() {
    return process.pid();
  }

  ProcessHandle handle() {
    return process.toHandle();
  }

  String awaitReady(Duration timeout) throws IOException {
    try {
      return ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IOException("pid " + pid() + " not ready within " + timeout);
    } catch (ExecutionException e) {
      throw new IOException(e.getCause().getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
  }

  /** SIGKILL, and wait (bounded) until it is gone. */
  void kill() {
    process.destroyForcibly();
    ChildProcesses.awaitExit(List.of(process.toHandle()), Duration.ofSeconds(10));
  }

  @Override
  public void close() {
    List<ProcessHandle> descendants = process.descendants().toList();
    process.destroy();
    if (!ChildProcesses.awaitExit(List.of(process.toHandle()), Duration.ofSeconds(30))) {
      process.destroyForcibly();
      ChildProcesses.awaitExit(List.of(process.toHandle()), Duration.ofSeconds(10));
    }
    for (ProcessHandle descendant : descendants) {
      if (descendant.isAlive()) {
        descendant.destroyForcibly();
      }
    }
  }

  private void drain(String readyPrefix) {
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        int at = line.indexOf(readyPrefix);
        if (at >= 0) {
          ready.complete(line.substring(at + readyPrefix.length()).trim());
        }
      }
    } catch (IOException ended) {
      // the process is gone; onExit fails the readiness if it never came
    }
  }

  private String exited() {
    return "pid " + pid() + " exited with status " + process.exitValue() + " before it was ready";
  }
}
