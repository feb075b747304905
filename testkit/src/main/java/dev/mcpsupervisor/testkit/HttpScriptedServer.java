package dev.mcpsupervisor.testkit;

import dev.mcpsupervisor.fixture.FixtureHttpServer;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A scripted server over Streamable HTTP in the JVM that runs it: the test's ({@link #inThisJvm})
 * or a child process's ({@link #inChildProcess}). Dropping the connection ({@link ToolScript#drop})
 * closes the server, which cuts every connection and call in flight, and serves again on the same
 * port at once. Ending it ({@link ToolScript#exit}) does the same in the test's JVM, as a restarted
 * server would; in a child it ends the process with the exit code, and the parent starts another
 * ({@link HttpScriptedProcess}).
 */
final class HttpScriptedServer implements HttpWire {

  private final ScriptRuntime runtime;
  private final AtomicReference<FixtureHttpServer> serving = new AtomicReference<>();
  private volatile boolean closed;

  private HttpScriptedServer(Scenario scenario, Journal journal, boolean exitEndsTheJvm) {
    this.runtime =
        new ScriptRuntime(
            scenario,
            journal,
            new ScriptRuntime.Faults() {
              @Override
              public void exit(int code) {
                if (exitEndsTheJvm) {
                  Runtime.getRuntime().halt(code);
                }
                restartInBackground();
              }

              @Override
              public void drop() {
                restartInBackground();
              }
            });
  }

  /** Started in the test's JVM on a free loopback port. */
  static HttpScriptedServer inThisJvm(Scenario scenario, Journal journal) {
    return start(new HttpScriptedServer(scenario, journal, false), 0);
  }

  /** Started in a child process's JVM on {@code port} (0: a free one); an exit ends that JVM. */
  static HttpScriptedServer inChildProcess(Scenario scenario, Journal journal, int port) {
    return start(new HttpScriptedServer(scenario, journal, true), port);
  }

  // the start is journaled once the server listens: a client that saw it may call at once
  private static HttpScriptedServer start(HttpScriptedServer server, int port) {
    server.serving.set(server.runtime.fixture().serveHttp(port, server.runtime::gate));
    server.runtime.started(ProcessHandle.current().pid());
    return server;
  }

  @Override
  public String url() {
    return serving.get().url();
  }

  // Not on the request's own thread: closing waits for the requests in flight.
  private void restartInBackground() {
    Thread restart =
        new Thread(
            () -> {
              synchronized (this) {
                if (closed) {
                  return;
                }
                FixtureHttpServer old = serving.get();
                old.close();
                serving.set(runtime.fixture().serveHttp(old.port(), runtime::gate));
                runtime.started(ProcessHandle.current().pid());
              }
            },
            "scripted-http-restart");
    restart.setDaemon(true);
    restart.start();
  }

  @Override
  public synchronized void close() {
    closed = true;
    serving.get().close();
  }
}
