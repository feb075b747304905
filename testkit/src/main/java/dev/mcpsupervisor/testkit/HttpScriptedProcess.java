package dev.mcpsupervisor.testkit;

import dev.mcpsupervisor.fixture.FixtureProcess;
import java.net.URI;
import java.util.List;

/**
 * A scripted server over Streamable HTTP as a child process of the test's JVM ({@code
 * ScriptedServerMain ... --http <port>}). Its URL is the one the child prints once it listens. When
 * the child exits ({@link ToolScript#exit}, or killed), another is started on the same port, as a
 * service manager restarts a server: until it listens (a JVM start), clients are refused. The child
 * ends when its stdin does, so it never outlives the test's JVM; {@link #close} ends it at once.
 */
final class HttpScriptedProcess implements HttpWire {

  private final Class<? extends Scenario> scenario;
  private final Journal journal;
  private final String url;
  private final int port;
  private FixtureProcess serving;
  private boolean closed;

  private HttpScriptedProcess(
      Class<? extends Scenario> scenario, Journal journal, FixtureProcess first) {
    this.scenario = scenario;
    this.journal = journal;
    this.url = first.url();
    this.port = URI.create(url).getPort();
    this.serving = first;
  }

  /** Spawns the child on a free loopback port and waits until it listens. */
  static HttpScriptedProcess start(Class<? extends Scenario> scenario, Journal journal) {
    HttpScriptedProcess server =
        new HttpScriptedProcess(scenario, journal, spawn(scenario, journal, 0));
    server.restartOnExit(server.serving);
    return server;
  }

  @Override
  public String url() {
    return url;
  }

  private static FixtureProcess spawn(
      Class<? extends Scenario> scenario, Journal journal, int port) {
    List<String> command =
        FixtureProcess.command(
            ScriptedServerMain.class,
            scenario.getName(),
            journal.file().toString(),
            ScriptedServerMain.HTTP,
            Integer.toString(port));
    return FixtureProcess.startHttp(command);
  }

  // a start waits for a JVM: on a thread of its own, not on the exit's (a shared pool's)
  private void restartOnExit(FixtureProcess child) {
    child
        .process()
        .onExit()
        .thenRun(
            () -> {
              Thread restart = new Thread(() -> restart(child), "scripted-http-process-restart");
              restart.setDaemon(true);
              restart.start();
            });
  }

  private synchronized void restart(FixtureProcess exited) {
    exited.close(); // its pipes
    if (closed) {
      return;
    }
    serving = spawn(scenario, journal, port);
    restartOnExit(serving);
  }

  @Override
  public synchronized void close() {
    closed = true;
    serving.close();
  }
}
