package dev.mcpsupervisor.actors;

import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.fixture.FixtureTools;
import java.time.Duration;

/**
 * A plain embed in a JVM of its own, for {@link EmbedLifecycleTest}: starts a supervisor on the
 * real fixture, makes one call, prints the server's pid, then returns from {@code main} with {@code
 * close()} (first argument {@code close}) or without it ({@code return}). The fixture is a stdio
 * child process, or the Streamable HTTP server at the second argument's URL. Its last line is the
 * wall-clock time it returned at, so the test can tell how long the JVM took to exit.
 */
public final class PlainEmbedMain {

  static final String PID = "server pid ";
  static final String RETURNING = "returning at ";

  private PlainEmbedMain() {}

  public static void main(String[] args) {
    boolean close = args[0].equals("close");
    SessionSupervisor supervisor =
        SessionSupervisor.start(
            RealFixture.config(
                args.length > 1
                    ? RealFixture.streamableHttp("fixture", args[1])
                    : RealFixture.stdio("fixture", 0)));
    String echoed =
        RealFixture.text(
            RealFixture.await(
                RealFixture.call(
                    supervisor, "run-1", "fixture", FixtureTools.ECHO, "message", "hi"),
                Duration.ofSeconds(30)));
    if (!echoed.equals("hi")) {
      throw new AssertionError("echo answered " + echoed);
    }
    SupervisorSnapshot snapshot = supervisor.snapshot().toCompletableFuture().join();
    snapshot.keys().get(0).sessions().get(0).pid().ifPresent(pid -> System.out.println(PID + pid));
    if (close) {
      supervisor.close();
    }
    System.out.println(RETURNING + System.currentTimeMillis());
  }
}
