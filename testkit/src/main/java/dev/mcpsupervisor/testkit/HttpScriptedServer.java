package dev.mcpsupervisor.testkit;

import dev.mcpsupervisor.fixture.FixtureHttpServer;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A scripted server over Streamable HTTP in this JVM. Ending it ({@link ToolScript#exit}, {@link
 * ToolScript#drop}) closes the server, which drops every connection and call in flight, and serves
 * again on the same port at once, as a restarted server would: a client sees its calls cut and must
 * connect anew.
 */
final class HttpScriptedServer implements AutoCloseable {

  private final ScriptRuntime runtime;
  private final AtomicReference<FixtureHttpServer> serving = new AtomicReference<>();
  private volatile boolean closed;

  private HttpScriptedServer(Scenario scenario, Journal journal) {
    this.runtime =
        new ScriptRuntime(
            scenario,
            journal,
            new ScriptRuntime.Faults() {
              @Override
              public void exit(int code) {
                restartInBackground();
              }

              @Override
              public void drop() {
                restartInBackground();
              }
            });
  }

  static HttpScriptedServer start(Scenario scenario, Journal journal) {
    HttpScriptedServer server = new HttpScriptedServer(scenario, journal);
    server.serving.set(server.runtime.fixture().serveHttp(0, server.runtime::gate));
    server.runtime.started(ProcessHandle.current().pid());
    return server;
  }

  String url() {
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
