package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mcpsupervisor.app.runtime.ChildProcesses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One run of a client script from src/test/node to its end: its exit status and the JSON line it
 * printed per step ({@code {"step": ..., "ok": true|false, "value"|"error": ...}}).
 */
record NodeClientRun(int exitStatus, List<String> stdout, List<String> stderr) {

  /** Longer than the scripts' own 30 s per step, so a hung step reports itself first. */
  static final Duration TIMEOUT = Duration.ofSeconds(120);

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Runs the command (its output kept in files in {@code dir}) and waits for its end; ends it and
   * its children when it outlives {@link #TIMEOUT}.
   */
  static NodeClientRun run(Path dir, String name, List<String> command) {
    Path out = dir.resolve(name + ".out");
    Path err = dir.resolve(name + ".err");
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      process.getOutputStream().close(); // the scripts read nothing
      boolean ended = process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      if (!ended) {
        ChildProcesses.end(process, Duration.ofSeconds(5));
      }
      NodeClientRun run =
          new NodeClientRun(
              ended ? process.exitValue() : -1, Files.readAllLines(out), Files.readAllLines(err));
      if (!ended) {
        fail("still running after " + TIMEOUT + ": " + command + "\n" + run.describe(() -> ""));
      }
      return run;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Fails unless the script printed exactly these steps, in this order, each ok, and exited 0. The
   * message names the first step that went wrong, what the script saw, and the {@code context}
   * (e.g. the gateway's log).
   */
  void assertSteps(Supplier<String> context, String... expected) {
    List<JsonNode> steps = stdout.stream().map(NodeClientRun::parse).toList();
    for (int i = 0; i < expected.length; i++) {
      if (i >= steps.size()) {
        fail(
            "no step \"" + expected[i] + "\" (the script stopped before it)\n" + describe(context));
      }
      JsonNode step = steps.get(i);
      if (!expected[i].equals(step.path("step").asText())) {
        fail("step " + (i + 1) + " is not \"" + expected[i] + "\"\n" + describe(context));
      }
      if (!step.path("ok").asBoolean()) {
        fail(
            "step \""
                + expected[i]
                + "\" failed: "
                + step.path("error").asText()
                + "\n"
                + describe(context));
      }
    }
    if (steps.size() != expected.length || exitStatus != 0) {
      fail(
          "expected only the steps "
              + List.of(expected)
              + " and exit status 0\n"
              + describe(context));
    }
  }

  private String describe(Supplier<String> context) {
    return "exit status "
        + exitStatus
        + "\nscript stdout:\n"
        + String.join("\n", stdout)
        + "\nscript stderr (last 30 lines):\n"
        + String.join("\n", tail(stderr, 30))
        + "\n"
        + context.get();
  }

  static List<String> tail(List<String> lines, int count) {
    return lines.subList(Math.max(0, lines.size() - count), lines.size());
  }

  private static JsonNode parse(String line) {
    try {
      return JSON.readTree(line);
    } catch (JsonProcessingException e) {
      return JSON.createObjectNode().put("step", "(not a JSON line) " + line);
    }
  }
}
