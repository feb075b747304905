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
 * gateway's demo server, in both protocol eras, in two phases a round: sessions of many calls (the
 * call path), then a burst of short sessions each on a new connection (the connect path: a burst's
 * JIT time was a third of its CPU while the warm-up opened about a hundred connections). It runs in
 * a process of its own (a small C1-only JVM, like the demo server): in the gateway's JVM, compiling
 * the HTTP client would take the JIT compiler's time from the gateway's code. {@link #stop} ends it
 * early.
 */
final class WarmupLoad {

  /**
   * One run of the load generator: sessions of {@code callsPerSession}, each its own connection.
   */
  private record Phase(int callsPerSession, int inFlight, double share) {}

  private static final List<Phase> PHASES = List.of(new Phase(50, 2, 0.5), new Phase(3, 1, 0.5));
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
   * One round: blocks until the load generator has made its calls, phase by phase, or soon after
   * {@link #stop} (then no further round runs); empty when every call was answered with its own
   * payload, else what the load generator printed.
   */
  String run(int port) {
    rounds++;
    for (Phase phase : PHASES) {
      String problem = run(port, phase);
      if (!problem.isEmpty() || stopped) {
        return problem;
      }
    }
    return "";
  }

  private String run(int port, Phase phase) {
    Path output;
    try {
      output = Files.createTempFile("mcp-supervisor-warmup", ".txt");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the warm-up's output file", e);
    }
    try {
      Process started =
          new ProcessBuilder(command(port, phase))
              .redirectInput(ProcessBuilder.Redirect.PIPE)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      process = started;
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

  /** A round's calls: the settings' count, rounded to whole sessions in each phase and era. */
  int callsPerRound() {
    return PHASES.stream()
        .mapToInt(phase -> ERA_COUNT * sessions(phase) * callsPerSession(phase))
        .sum();
  }

  /** The rounds {@link #run} began. */
  int rounds() {
    return rounds;
  }

  private int sessions(Phase phase) {
    int calls = perEra(phase);
    return Math.max(1, (calls + phase.callsPerSession() - 1) / phase.callsPerSession());
  }

  private int callsPerSession(Phase phase) {
    return (perEra(phase) + sessions(phase) - 1) / sessions(phase);
  }

  private int perEra(Phase phase) {
    return Math.max(1, (int) Math.round(settings.calls() * phase.share() / ERA_COUNT));
  }

  private List<String> command(int port, Phase phase) {
    List<String> command = new ArrayList<>(DemoConfig.smallJvmCommand(Main.class.getName()));
    command.addAll(
        List.of(
            "bench",
            "http://127.0.0.1:" + port + "/servers/" + DemoConfig.SERVER_NAME + "/mcp",
            "--sessions",
            Integer.toString(sessions(phase)),
            "--calls",
            Integer.toString(callsPerSession(phase)),
            "--in-flight",
            Integer.toString(phase.inFlight()),
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
