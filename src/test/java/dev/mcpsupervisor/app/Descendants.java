package dev.mcpsupervisor.app;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The processes a test caused to exist, found by what their command lines say. */
final class Descendants {

  private Descendants() {}

  /**
   * Live descendants of {@code parent} whose command line mentions {@code marker} (e.g. a main
   * class). The command line is read whole from /proc: {@link ProcessHandle.Info#commandLine} stops
   * at 4,096 characters, before the main class of a JVM started with a test's long class path.
   */
  static List<ProcessHandle> running(ProcessHandle parent, String marker) {
    return parent
        .descendants()
        .filter(ProcessHandle::isAlive)
        .filter(handle -> commandLine(handle).map(line -> line.contains(marker)).orElse(false))
        .toList();
  }

  private static Optional<String> commandLine(ProcessHandle process) {
    try {
      byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(process.pid()), "cmdline"));
      return Optional.of(new String(raw, StandardCharsets.UTF_8).replace('\0', ' '));
    } catch (IOException | RuntimeException e) {
      return process.info().commandLine(); // not Linux, or the process is gone
    }
  }
}
