package dev.mcpsupervisor.app;

import dev.mcpsupervisor.app.bench.BenchCommand;
import dev.mcpsupervisor.app.demo.DemoConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The warm-up's calls ({@link Warmup}): the {@code bench} load generator against the private
 * gateway's demo server, in both protocol eras, many sessions each opened and deleted, so that the
 * connect path gets compiled as well as the calls. It runs in a process of its own (a small C1-only
 * JVM, like the demo server): in the gateway's JVM, compiling the HTTP client would take the JIT
 * compiler's time from the gateway's code. {@link #stop} ends it early.
 */
final class WarmupLoad {

  /** Many sessions, so that opening and deleting one gets compiled too. */
  private static final int CALLS_PER_SESSION = 50;

  private static final int IN_FLIGHT = 2;
  private static final String ERAS = "both";
  private static final int ERA_COUNT = 2;
  private static final String TOOL = "echo";
  private static final String ARGUMENT = "message";
  private static final Duration KILL_WAIT = Duration.ofSeconds(5);

  private final WarmupSettings settings;
  private volatile Process process;
  private volatile int rounds;
  private volatile boolean stopped;

  WarmupLoad(WarmupSettings settings) {
    this.settings = settings;
  }

  /**
   * One round: blocks until the load generator has made its calls, or soon after {@link #stop}
   * (then no further round runs); empty when every call was answered with its own payload, else
   * what the load generator printed.
   */
  String run(int port) {
    Path output;
    try {
      output = Files.createTempFile("mcp-supervisor-warmup", ".txt");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the warm-up's output file", e);
    }
    try {
      Process started =
          new ProcessBuilder(command(port))
              .redirectInput(ProcessBuilder.Redirect.PIPE)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      process = started;
      rounds++;
      if (stopped) {
        stop();
      }
      int status = started.waitFor();
      return status == BenchCommand.EXIT_CLEAN
          ? ""
          : "the load generator exited with status " + status + ": " + Files.readString(output);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run the warm-up's load generator", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop();
      return "interrupted";
    } finally {
      try {
        Files.deleteIfExists(output);
      } catch (IOException e) {
        // a temporary file; the OS cleans up
      }
    }
  }

  /** Kills the load generator (it holds no state worth a clean stop) and waits for it, bounded. */
  void stop() {
    stopped = true;
    Process running = process;
    if (running != null) {
      running.destroyForcibly();
      try {
        running.waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The calls it made: each round's, the settings' count rounded to whole sessions in each era. */
  int calls() {
    return rounds * callsPerRound();
  }

  /** A round's calls: the settings' count, rounded to whole sessions in each era. */
  int callsPerRound() {
    return ERA_COUNT * sessions() * callsPerSession();
  }

  /** The rounds {@link #run} began. */
  int rounds() {
    return rounds;
  }

  private int sessions() {
    return Math.max(1, (perEra() + CALLS_PER_SESSION - 1) / CALLS_PER_SESSION);
  }

  private int callsPerSession() {
    return (perEra() + sessions() - 1) / sessions();
  }

  private int perEra() {
    return Math.max(1, settings.calls() / ERA_COUNT);
  }

  private List<String> command(int port) {
    List<String> command = new ArrayList<>(DemoConfig.smallJvmCommand(Main.class.getName()));
    command.addAll(
        List.of(
            "bench",
            "http://127.0.0.1:" + port + "/servers/" + DemoConfig.SERVER_NAME + "/mcp",
            "--sessions",
            Integer.toString(sessions()),
            "--calls",
            Integer.toString(callsPerSession()),
            "--in-flight",
            Integer.toString(IN_FLIGHT),
            "--era",
            ERAS,
            "--tool",
            TOOL,
            "--argument",
            ARGUMENT,
            "--timeout",
            Long.toString(Math.max(1, settings.maxDuration().toSeconds()))));
    return command;
  }
}
