package dev.mcpsupervisor.app.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * CPU time a process has used so far, from {@code /proc/<pid>/stat} (utime + stime, in clock
 * ticks). With {@code withChildren}, the live descendants' times are added: a child that exits
 * between two readings is lost, so stop none during a run.
 */
final class ProcessCpu {

  private static final long DEFAULT_TICKS_PER_SECOND = 100;

  private final long pid;
  private final boolean withChildren;
  private final long ticksPerSecond;

  ProcessCpu(long pid, boolean withChildren) {
    this.pid = pid;
    this.withChildren = withChildren;
    this.ticksPerSecond = ticksPerSecond();
  }

  /** Microseconds of CPU used so far. */
  long micros() {
    long ticks = ticks(pid);
    if (withChildren) {
      ticks +=
          ProcessHandle.of(pid).stream()
              .flatMap(ProcessHandle::descendants)
              .mapToLong(child -> ticksOrZero(child.pid()))
              .sum();
    }
    return ticks * 1_000_000 / ticksPerSecond;
  }

  private static long ticksOrZero(long pid) {
    try {
      return ticks(pid);
    } catch (UncheckedIOException gone) {
      return 0;
    }
  }

  /** utime + stime: fields 14 and 15, counted after the ")" that ends the command name. */
  static long ticks(long pid) {
    String stat;
    try {
      stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the CPU time of process " + pid, e);
    }
    return ticksFromStat(stat);
  }

  static long ticksFromStat(String stat) {
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // fields[0] is field 3 (state): utime is field 14, stime field 15
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }

  /** {@code getconf CLK_TCK}, or 100 (Linux's usual value) when it cannot be asked. */
  private static long ticksPerSecond() {
    try {
      Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String answer = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (getconf.waitFor(5, TimeUnit.SECONDS) && getconf.exitValue() == 0) {
        return Long.parseLong(answer.strip());
      }
      getconf.destroyForcibly();
    } catch (IOException | NumberFormatException e) {
      // fall back to the usual value
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return DEFAULT_TICKS_PER_SECOND;
  }
}
