package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A library's lifecycle: a {@code main} that returns ends its JVM, with or without {@code close()},
 * and leaves no server process; {@code close()} is idempotent and safe from any thread.
 */
class EmbedLifecycleTest {

  /** From main's return to the JVM's exit, at most (the bound). */
  private static final Duration EXIT_BOUND = Duration.ofSeconds(10);

  /** Start-up, one call and (with close) the close: generous for a loaded CI machine. */
  private static final Duration RUN_BOUND = Duration.ofSeconds(90);

  private static final String SERVER = "fixture";

  @AfterAll
  static void noProcessOutlivesTheTests() {
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void returningFromMainWithoutCloseEndsTheJvmAndTheServerProcess() throws Exception {
    EmbedRun run = EmbedRun.of("return");

    assertTrue(run.exitedWithin(EXIT_BOUND), run.failure("the JVM did not exit after main"));
    assertEquals(0, run.exitCode(), run.failure("exit status"));
    assertServerGone(run);
    assertQuiet(run);
  }

  @Test
  void returningFromMainWithoutCloseEndsTheJvmOverStreamableHttp() throws Exception {
    try (FixtureProcess server = FixtureProcess.startHttp()) {
      EmbedRun run = EmbedRun.of("return", server.url());

      assertTrue(run.exitedWithin(EXIT_BOUND), run.failure("the JVM did not exit after main"));
      assertEquals(0, run.exitCode(), run.failure("exit status"));
      assertQuiet(run);
    }
  }

  @Test
  void returningFromMainAfterCloseEndsTheJvmQuietly() throws Exception {
    EmbedRun run = EmbedRun.of("close");

    assertTrue(run.exitedWithin(EXIT_BOUND), run.failure("the JVM did not exit after main"));
    assertEquals(0, run.exitCode(), run.failure("exit status"));
    assertServerGone(run);
    assertQuiet(run);
  }

  @Test
  void closeTwiceAndFromFiftyRacingThreadsCompletes() throws Exception {
    long pid;
    SessionSupervisor supervisor =
        SessionSupervisor.start(RealFixture.config(RealFixture.stdio(SERVER, 10)));
    pid = RealFixture.pid(supervisor, "run-1", SERVER);
    int threads = 50;
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    List<Thread> closers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread closer =
          new Thread(
              () -> {
                ready.countDown();
                try {
                  go.await();
                  supervisor.close();
                } catch (Throwable e) {
                  failures.add(e);
                }
              },
              "closer-" + i);
      closer.start();
      closers.add(closer);
    }
    ready.await();
    go.countDown();
    for (Thread closer : closers) {
      closer.join(RUN_BOUND.toMillis());
      assertFalse(closer.isAlive(), closer.getName() + " still closing");
    }
    assertEquals(List.of(), failures);
    supervisor.close();
    assertTrue(supervisor.actorSystem().whenTerminated().isCompleted());
    assertFalse(ChildProcesses.isAlive(pid), "close() ends the server process");
  }

  @Test
  void closeFromACallbackOnTheSupervisorsThreadCompletes() throws Exception {
    SessionSupervisor supervisor =
        SessionSupervisor.start(RealFixture.config(RealFixture.stdio(SERVER, 11)));
    long pid = RealFixture.pid(supervisor, "run-1", SERVER);
    CompletableFuture<String> closedOn = new CompletableFuture<>();
    RealFixture.call(supervisor, "run-1", SERVER, FixtureTools.ECHO, "message", "last")
        .thenAccept(
            answer -> {
              String thread = Thread.currentThread().getName();
              supervisor.close();
              closedOn.complete(thread);
            });

    String thread = closedOn.get(RUN_BOUND.toMillis(), TimeUnit.MILLISECONDS);

    assertTrue(thread.startsWith("mcp-supervisor"), "the callback ran on " + thread);
    supervisor.actorSystem().getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertFalse(ChildProcesses.isAlive(pid), "close() ends the server process");
  }

  /** Start, a call and the end are all expected: nothing to warn about, no dead letters. */
  private static void assertQuiet(EmbedRun run) {
    List<String> noisy =
        run.output.stream()
            .filter(
                line ->
                    line.startsWith("WARN")
                        || line.startsWith("ERROR")
                        || line.startsWith("SLF4J(W)")
                        || line.contains("dead letter")
                        || line.contains("not delivered"))
            .toList();
    assertEquals(List.of(), noisy, run.failure("an expected event logged"));
  }

  private static void assertServerGone(EmbedRun run) throws Exception {
    long pid = run.serverPid();
    ProcessHandle.of(pid)
        .ifPresent(
            server -> {
              try {
                server.onExit().get(EXIT_BOUND.toMillis(), TimeUnit.MILLISECONDS);
              } catch (Exception e) {
                server.destroyForcibly();
                throw new AssertionError("server process " + pid + " outlived its JVM", e);
              }
            });
  }

  /** One run of {@link PlainEmbedMain} in a JVM of its own, stdout and stderr as one. */
  private static final class EmbedRun {
    private final Process process;
    private final List<ProcessHandle> tree = new CopyOnWriteArrayList<>();
    final List<String> output = new CopyOnWriteArrayList<>();
    private final CompletableFuture<Long> returnedAt = new CompletableFuture<>();
    private final CompletableFuture<Long> exitedAt;
    private final String mode;

    private EmbedRun(Process process, String mode) {
      this.process = process;
      this.mode = mode;
      this.exitedAt = process.onExit().thenApply(ended -> System.currentTimeMillis());
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader lines =
                    new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    output.add(line);
                    if (line.startsWith(PlainEmbedMain.PID)) {
                      // known before main returns: killed with its JVM if a test fails
                      tree.addAll(process.descendants().toList());
                    }
                    if (line.startsWith(PlainEmbedMain.RETURNING)) {
                      returnedAt.complete(
                          Long.parseLong(line.substring(PlainEmbedMain.RETURNING.length())));
                    }
                  }
                } catch (IOException e) {
                  // the stream ends with the process
                } finally {
                  returnedAt.complete(-1L);
                }
              },
              "embed-output-" + process.pid());
      reader.setDaemon(true);
      reader.start();
    }

    static EmbedRun of(String... arguments) throws IOException {
      Path java = Path.of(System.getProperty("java.home"), "bin", "java");
      List<String> command = new ArrayList<>();
      command.addAll(
          List.of(
              Files.isExecutable(java) ? java.toString() : "java",
              "-XX:TieredStopAtLevel=1",
              "-Xshare:auto",
              "-Dlogback.configurationFile=logback-embed.xml",
              "-cp",
              FixtureProcess.classpath(),
              PlainEmbedMain.class.getName()));
      command.addAll(List.of(arguments));
      return new EmbedRun(
          new ProcessBuilder(command).redirectErrorStream(true).start(),
          String.join(" ", arguments));
    }

    /** Waits for main to return (or the JVM to end), then at most {@code bound} for the exit. */
    boolean exitedWithin(Duration bound) throws Exception {
      long returned;
      try {
        returned = returnedAt.get(RUN_BOUND.toMillis(), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        kill();
        throw new AssertionError(failure("main did not return"));
      }
      boolean exited = process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS);
      if (!exited) {
        kill();
        return false;
      }
      if (returned > 0) {
        System.out.println(
            "embed exit ("
                + mode
                + "): "
                + (exitedAt.join() - returned)
                + " ms from main's return to the exit");
      }
      return true;
    }

    int exitCode() {
      return process.exitValue();
    }

    long serverPid() {
      return output.stream()
          .filter(line -> line.startsWith(PlainEmbedMain.PID))
          .map(line -> Long.parseLong(line.substring(PlainEmbedMain.PID.length())))
          .findFirst()
          .orElseThrow(() -> new AssertionError(failure("no server pid")));
    }

    String failure(String what) {
      return what + "; its output:\n" + String.join("\n", output);
    }

    private void kill() throws InterruptedException {
      Stream.concat(Stream.of(process.toHandle()), tree.stream())
          .forEach(ProcessHandle::destroyForcibly);
      process.waitFor(EXIT_BOUND.toMillis(), TimeUnit.MILLISECONDS);
    }
  }
}
