package dev.mcpsupervisor.app.chaos;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Signals to one process by its pid, through {@code kill(1)}: the JDK sends only TERM and KILL. */
final class Signals {

  private Signals() {}

  static void kill(long pid) {
    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
  }

  static void stop(long pid) throws IOException {
    send("-STOP", pid);
  }

  static void resume(long pid) throws IOException {
    send("-CONT", pid);
  }

  private static void send(String signal, long pid) throws IOException {
    Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start();
    try {
      if (!kill.waitFor(Duration.ofSeconds(5).toMillis(), TimeUnit.MILLISECONDS)) {
        kill.destroyForcibly();
        throw new IOException("kill " + signal + " " + pid + " did not finish");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
  }
}
