package dev.mcpsupervisor.upstream;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains a process's stderr on its own daemon thread (a full pipe would block the process), logs it
 * (rate-limited) and keeps the last lines (bounded in count and length) to explain an exit.
 */
final class StderrTail {

  /** Logger of upstream stderr lines, so operators can silence or raise them on their own. */
  static final Logger STDERR_LOG = LoggerFactory.getLogger("dev.mcpsupervisor.upstream.stderr");

  static final int KEPT_LINES = 20;
  static final int KEPT_LINE_CHARS = 300;
  private static final int LOGGED_LINES_PER_SECOND = 50;
  private static final int MAX_LINE_BYTES = 64 * 1024;

  private final String name;
  private final Deque<String> lines = new ArrayDeque<>(KEPT_LINES);
  private final CompletableFuture<Void> drained = new CompletableFuture<>();
  private final RateLimitedLog log = new RateLimitedLog(STDERR_LOG, LOGGED_LINES_PER_SECOND);

  private StderrTail(String name) {
    this.name = name;
  }

  /** Starts draining {@code stderr} on a daemon thread named {@code threadName}. */
  static StderrTail drain(String name, InputStream stderr, String threadName) {
    StderrTail tail = new StderrTail(name);
    DaemonThreads.start(threadName, () -> tail.readAll(stderr));
    return tail;
  }

  private void readAll(InputStream stderr) {
    try (stderr) {
      BoundedLineReader reader = new BoundedLineReader(stderr, MAX_LINE_BYTES);
      for (byte[] bytes = reader.readLine(); bytes != null; bytes = reader.readLine()) {
        String line =
            bytes == BoundedLineReader.OVERSIZED
                ? "(a line longer than " + MAX_LINE_BYTES + " bytes, not shown)"
                : new String(bytes, StandardCharsets.UTF_8);
        keep(line);
        log.info("[{}] {}", name, line);
      }
    } catch (IOException e) {
      // the pipe closed under us: the process is gone
    } finally {
      drained.complete(null);
    }
  }

  private synchronized void keep(String line) {
    if (line.isBlank()) {
      return;
    }
    if (lines.size() == KEPT_LINES) {
      lines.removeFirst();
    }
    lines.addLast(
        line.length() > KEPT_LINE_CHARS ? line.substring(0, KEPT_LINE_CHARS) + "…" : line);
  }

  /** Completes when stderr reached its end. */
  CompletableFuture<Void> drained() {
    return drained;
  }

  /** The last lines kept, joined by " | " on one line; "" when there were none. */
  synchronized String lastLines() {
    return String.join(" | ", lines);
  }
}
