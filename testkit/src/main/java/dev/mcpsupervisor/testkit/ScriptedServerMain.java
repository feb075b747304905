package dev.mcpsupervisor.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.fixture.FixtureTools;
import io.modelcontextprotocol.server.McpAsyncServer;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A scripted server as a child process: {@code ScriptedServerMain <scenario class> <journal file>
 * --stdio|--stdio-2026|--http <port>}. Over stdio it reads its stdin line by line through the
 * script's gate (which records each message and may answer it), and hands the rest to the fixture's
 * server of the era asked for; stdout carries the protocol alone. Over HTTP it serves both eras on
 * 127.0.0.1 and the port (0: a free one), prints {@link FixtureTools#LISTENING_PREFIX} and its URL
 * on stdout once it listens, and exits when its stdin ends (its parent closed it, or died). Logs go
 * to stderr.
 */
public final class ScriptedServerMain {

  static final String SESSIONS = "--stdio";
  static final String STATELESS = "--stdio-2026";
  static final String HTTP = "--http";

  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(2);
  private static final int PIPE_BYTES = 1 << 20;

  private ScriptedServerMain() {}

  public static void main(String[] args) throws Exception {
    boolean stdio = args.length == 3 && (args[2].equals(SESSIONS) || args[2].equals(STATELESS));
    boolean http = args.length == 4 && args[2].equals(HTTP);
    if (!stdio && !http) {
      System.err.println(
          "usage: ScriptedServerMain <scenario class> <journal file>"
              + " --stdio|--stdio-2026|--http <port>");
      System.exit(2);
    }
    FileOutputStream stdout = new FileOutputStream(FileDescriptor.out);
    System.setOut(System.err);
    if (http) {
      serveHttp(
          scenario(args[0]), new Journal(Path.of(args[1])), Integer.parseInt(args[3]), stdout);
      System.exit(0);
    }
    LineOutput protocolOut = new LineOutput(stdout);
    ScriptRuntime runtime =
        new ScriptRuntime(
            scenario(args[0]),
            new Journal(Path.of(args[1])),
            new ScriptRuntime.Faults() {
              @Override
              public void exit(int code) {
                Runtime.getRuntime().halt(code);
              }

              @Override
              public void drop() {
                protocolOut.cut();
              }
            });
    int exitNow = runtime.started(ProcessHandle.current().pid());
    if (exitNow != 0) {
      Runtime.getRuntime().halt(exitNow);
    }
    PipedInputStream serverIn = new PipedInputStream(PIPE_BYTES);
    PipedOutputStream toServer = new PipedOutputStream(serverIn);
    PrintStream out = new PrintStream(protocolOut, true, StandardCharsets.UTF_8);
    if (args[2].equals(SESSIONS)) {
      McpAsyncServer server = runtime.fixture().serveStdio(serverIn, out);
      pump(runtime, toServer, out);
      server.closeGracefully().timeout(CLOSE_TIMEOUT).onErrorComplete().block();
    } else {
      Thread serving =
          new Thread(
              () -> {
                try {
                  runtime.fixture().serveStdio2026(serverIn, out);
                } catch (IOException e) {
                  // stdin is gone: so is the client
                }
              },
              "scripted-stdio-2026");
      serving.start();
      pump(runtime, toServer, out);
      serving.join(CLOSE_TIMEOUT.toMillis());
    }
    System.exit(0);
  }

  private static void serveHttp(Scenario scenario, Journal journal, int port, OutputStream stdout)
      throws IOException {
    HttpScriptedServer server = HttpScriptedServer.inChildProcess(scenario, journal, port);
    PrintStream out = new PrintStream(stdout, true, StandardCharsets.UTF_8);
    out.println(FixtureTools.LISTENING_PREFIX + server.url());
    // the parent holds our stdin: when it ends, even by the parent's SIGKILL, we follow
    while (System.in.read() != -1) {
      // input is ignored
    }
    server.close();
  }

  /** Stdin's lines through the gate to the server, until stdin ends. */
  private static void pump(ScriptRuntime runtime, OutputStream toServer, PrintStream out)
      throws IOException {
    BufferedReader lines =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (toServer) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        ObjectNode answer = null;
        JsonNode message = parse(line);
        if (message != null && message.isObject()) {
          answer = runtime.gate(message);
        }
        if (answer != null) {
          out.println(answer);
        } else {
          toServer.write((line + "\n").getBytes(StandardCharsets.UTF_8));
          toServer.flush();
        }
      }
    }
  }

  private static JsonNode parse(String line) {
    try {
      return Journal.MAPPER.readTree(line);
    } catch (IOException e) {
      return null; // the server answers what it cannot parse
    }
  }

  private static Scenario scenario(String className) throws ReflectiveOperationException {
    Constructor<?> constructor = Class.forName(className).getDeclaredConstructor();
    constructor.setAccessible(true);
    return (Scenario) constructor.newInstance();
  }

  /**
   * Stdout written a whole line at a time, whoever writes (the server's thread, the gate's), and
   * cut off for good by {@link #cut}: the connection dropped, the process alive.
   */
  private static final class LineOutput extends OutputStream {

    private final OutputStream out;
    private final ThreadLocal<ByteArrayOutputStream> pending =
        ThreadLocal.withInitial(ByteArrayOutputStream::new);
    private boolean cut;

    LineOutput(OutputStream out) {
      this.out = out;
    }

    @Override
    public void write(int b) throws IOException {
      ByteArrayOutputStream line = pending.get();
      line.write(b);
      if (b == '\n') {
        writeLine(line);
      }
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      for (int i = offset; i < offset + length; i++) {
        write(bytes[i]);
      }
    }

    private synchronized void writeLine(ByteArrayOutputStream line) throws IOException {
      try {
        if (!cut) {
          line.writeTo(out);
          out.flush();
        }
      } finally {
        line.reset();
      }
    }

    synchronized void cut() {
      cut = true;
      try {
        out.close();
      } catch (IOException e) {
        // closed already
      }
    }
  }
}
