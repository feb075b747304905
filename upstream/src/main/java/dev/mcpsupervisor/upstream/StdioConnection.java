package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A spawned stdio MCP server. One JSON-RPC message per line each way. Three daemon threads named
 * after the server: the stdout reader, the stderr drain and the stdin writer (sends queue up, so a
 * caller never blocks on a full pipe, and lines never interleave). The process's exit is reported
 * at once through {@link Process#onExit()}, with its exit code and last stderr lines; close() ends
 * the whole process tree.
 */
final class StdioConnection implements UpstreamConnection {

  private static final Logger log = LoggerFactory.getLogger(StdioConnection.class);

  /**
   * After the exit, what the process wrote last is still in the pipes: its final answers and the
   * stderr lines that explain the exit. Wait this long at most for both to be read (a descendant
   * holding the pipes open keeps them from ending) before reporting the exit.
   */
  private static final long OUTPUT_AFTER_EXIT_MILLIS = 200;

  /**
   * A process whose stdout ends is expected to exit; one still running this long after is ended
   * (generous: under load, the exit of a process can be seen seconds after its pipes close).
   */
  private static final long EXIT_AFTER_STDOUT_MILLIS = 3_000;

  private final Process process;
  private final ConnectionEvents events;
  private final StderrTail stderr;
  private final Duration grace;
  private final int maxMessageBytes;
  private final LinkedBlockingQueue<Outgoing> outgoing = new LinkedBlockingQueue<>();
  private final CompletableFuture<Void> stdoutEnded = new CompletableFuture<>();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final CompletableFuture<Void> closed = new CompletableFuture<>();
  private volatile boolean exited;
  private volatile boolean writerStopped;

  /** One line to write, or {@link #STOP}: close stdin and stop writing. */
  private record Outgoing(byte[] bytes, CompletableFuture<Void> written) {}

  private static final Outgoing STOP = new Outgoing(null, null);

  private StdioConnection(
      Process process,
      String name,
      Duration grace,
      int maxMessageBytes,
      ConnectionListener listener) {
    this.process = process;
    this.grace = grace;
    this.maxMessageBytes = maxMessageBytes;
    this.events =
        new ConnectionEvents("stdio server " + name + " (pid " + process.pid() + ")", listener);
    String threadPrefix = "mcp-stdio-" + name + "-" + process.pid();
    this.stderr = StderrTail.drain(name, process.getErrorStream(), threadPrefix + "-stderr");
    DaemonThreads.start(threadPrefix + "-stdout", this::readStdout);
    DaemonThreads.start(threadPrefix + "-stdin", this::writeStdin);
  }

  /**
   * @param maxMessageBytes the longest stdout line accepted: a longer one ends the connection (its
   *     framing is lost), and the process with it
   */
  static StdioConnection start(
      Process process,
      String name,
      Duration grace,
      int maxMessageBytes,
      ConnectionListener listener) {
    StdioConnection connection =
        new StdioConnection(process, name, grace, maxMessageBytes, listener);
    ProcessGroups.started(process.toHandle());
    process.onExit().thenRun(connection::onExit);
    return connection;
  }

  @Override
  public CompletionStage<Void> send(JsonRpcMessage message) {
    if (closing.get() || exited) {
      return events.failedAfterClose(
          new IOException(events.name() + " is " + (exited ? "gone" : "closed")));
    }
    CompletableFuture<Void> written = new CompletableFuture<>();
    outgoing.add(new Outgoing(JsonRpcCodec.toBytes(message), written));
    if (writerStopped) {
      // the writer ended between the check above and the add: nobody else will take this line
      failPendingWrites(new IOException(events.name() + " is closed"));
    }
    return written;
  }

  @Override
  public CompletionStage<Void> close() {
    return end(ConnectionClosed.Kind.CLOSED_BY_US, "closed by the supervisor");
  }

  /** Reports the end (unless reported already) and ends the process tree. */
  private CompletionStage<Void> end(ConnectionClosed.Kind kind, String detail) {
    if (closing.compareAndSet(false, true)) {
      events.close(kind, detail);
      outgoing.add(STOP);
      // walking the process table takes its time: never on the caller's thread (an actor's)
      ProcessGroups.WORKERS.execute(this::endTree);
    }
    return closed;
  }

  /**
   * TERM to the tree (and its group), KILL after the grace period to what is left; then the group
   * is gone.
   */
  private void endTree() {
    ProcessHandle leader = process.toHandle();
    List<ProcessHandle> tree = ProcessTree.snapshot(leader);
    ProcessGroups.signal(leader, "TERM");
    ProcessTree.terminate(tree, grace)
        .whenCompleteAsync(
            (done, failure) -> {
              ProcessGroups.signal(
                  leader, "KILL"); // whatever the walk could not see (re-parented children)
              ProcessGroups.ended(leader);
              closed.complete(null);
            },
            ProcessGroups.WORKERS);
  }

  @Override
  public OptionalLong pid() {
    return OptionalLong.of(process.pid());
  }

  private void onExit() {
    exited = true;
    if (!closing.get()) {
      ProcessGroups.endOrphans(process.toHandle(), grace);
    }
    CompletableFuture.allOf(stdoutEnded, stderr.drained())
        .completeOnTimeout(null, OUTPUT_AFTER_EXIT_MILLIS, TimeUnit.MILLISECONDS)
        .thenRun(
            () -> {
              String lastStderr = stderr.lastLines();
              events.close(
                  ConnectionClosed.Kind.PROCESS_EXITED,
                  "exit code "
                      + process.exitValue()
                      + (lastStderr.isEmpty() ? "" : "; last stderr: " + lastStderr));
              outgoing.add(STOP);
            });
  }

  private void readStdout() {
    try (InputStream stdout = process.getInputStream()) {
      BoundedLineReader lines = BoundedLineReader.failingPastBound(stdout, maxMessageBytes);
      for (byte[] line = lines.readLine(); line != null; line = lines.readLine()) {
        if (!isBlank(line)) {
          events.payload(line, null);
        }
      }
    } catch (MessageTooLargeException e) {
      // the rest of the line cannot be skipped in bounded time: the framing is lost
      log.warn("{}: stdout {}; ending the server", events.name(), e.getMessage());
      end(ConnectionClosed.Kind.TRANSPORT_ERROR, "stdout " + e.getMessage());
    } catch (IOException e) {
      log.debug("{}: stdout closed: {}", events.name(), e.toString());
    } finally {
      stdoutEnded.complete(null);
    }
    endIfStillRunning();
  }

  /**
   * Stdout is over: a process that exits reports its exit (with its code and stderr) through {@link
   * #onExit}; one that keeps running can never answer again, so it is ended as a transport failure
   * and its calls fail now instead of at their deadlines.
   */
  private void endIfStillRunning() {
    process
        .onExit()
        .thenApply(gone -> true)
        .completeOnTimeout(false, EXIT_AFTER_STDOUT_MILLIS, TimeUnit.MILLISECONDS)
        .thenAccept(
            gone -> {
              if (!gone && !closing.get()) {
                log.warn("{}: closed its stdout but still runs; ending it", events.name());
                end(ConnectionClosed.Kind.TRANSPORT_ERROR, "stdout closed while the process runs");
              }
            });
  }

  private static boolean isBlank(byte[] line) {
    for (byte b : line) {
      if (b != ' ' && b != '\t' && b != '\r') {
        return false;
      }
    }
    return true;
  }

  /** Writes queued lines in order; a batch of queued lines costs one flush. */
  private void writeStdin() {
    OutputStream stdin = process.getOutputStream();
    List<Outgoing> batch = new ArrayList<>();
    try {
      while (true) {
        batch.add(outgoing.take());
        outgoing.drainTo(batch);
        if (!writeBatch(stdin, batch)) {
          return;
        }
        batch.clear();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeQuietly(stdin);
      writerStopped = true;
      failPendingWrites(new IOException(events.name() + " is " + (exited ? "gone" : "closed")));
    }
  }

  /** Returns false once the stop signal or a write failure ended the writing. */
  private boolean writeBatch(OutputStream stdin, List<Outgoing> batch) {
    List<Outgoing> written = new ArrayList<>(batch.size());
    try {
      for (Outgoing line : batch) {
        if (line == STOP) {
          stdin.flush();
          written.forEach(done -> done.written().complete(null));
          IOException stopped =
              new IOException(events.name() + " is " + (exited ? "gone" : "closed"));
          batch.stream()
              .skip(written.size() + 1L)
              .filter(after -> after != STOP)
              .forEach(after -> events.failAfterClose(after.written(), stopped));
          return false;
        }
        stdin.write(line.bytes());
        stdin.write('\n');
        written.add(line);
      }
      stdin.flush();
      written.forEach(done -> done.written().complete(null));
      return true;
    } catch (IOException e) {
      IOException failure =
          new IOException(events.name() + ": cannot write to stdin: " + e.getMessage(), e);
      batch.stream()
          .filter(line -> line != STOP)
          .forEach(line -> events.failAfterClose(line.written(), failure));
      return false;
    }
  }

  private void failPendingWrites(IOException failure) {
    List<Outgoing> pending = new ArrayList<>();
    outgoing.drainTo(pending);
    pending.stream()
        .filter(line -> line != STOP)
        .forEach(line -> events.failAfterClose(line.written(), failure));
  }

  private static void closeQuietly(OutputStream stream) {
    try {
      stream.close();
    } catch (IOException e) {
      // the process is gone and took the pipe with it
    }
  }
}
