package dev.mcpsupervisor.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * A scripted server as a child process over stdio: {@code ScriptedServerMain <scenario class>
 * <journal file> --stdio|--stdio-2026}. It reads its stdin line by line through the script's gate
 * (which records each message and may answer it), and hands the rest to the fixture's server of the
 * era asked for. Logs go to stderr; stdout carries the protocol alone.
 */
public final class ScriptedServerMain {

  static final String SESSIONS = "--stdio";
  static final String STATELESS = "--stdio-2026";

  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(2);
  private static final int PIPE_BYTES = 1 << 20;

  private ScriptedServerMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3 || !(args[2].equals(SESSIONS) || args[2].equals(STATELESS))) {
      System.err.println(
          "usage: ScriptedServerMain <scenario class> <journal file> --stdio|--stdio-2026");
      System.exit(2);
    }
    FileOutputStream stdout = new FileOutputStream(FileDescriptor.out);
    System.setOut(System.err);
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
