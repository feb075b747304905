package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A stdio MCP client of a process it starts ({@code mcp-supervisor stdio} or {@code connect}), or
 * of a front in this JVM ({@link #on}): it writes lines on the front's stdin and reads its stdout
 * line by line, each of which must be a JSON-RPC 2.0 message (anything else is kept in {@link
 * #notJsonRpc}).
 */
final class StdioClient implements AutoCloseable {

  static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(60);

  /** The front's process, or null for one in this JVM. */
  final Process process;

  final long startedNanos = System.nanoTime();
  final List<String> notJsonRpc = new ArrayList<>();
  private final BlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
  private final ConcurrentLinkedQueue<String> stderr = new ConcurrentLinkedQueue<>();
  private final OutputStream stdin;

  private StdioClient(
      Process process, OutputStream stdin, InputStream stdoutOf, InputStream stderrOf, String who) {
    this.process = process;
    this.stdin = stdin;
    Thread stdout =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(new InputStreamReader(stdoutOf, StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                  try {
                    JsonNode message = JSON.readTree(line);
                    if (!"2.0".equals(message.path("jsonrpc").asText())) {
                      synchronized (notJsonRpc) {
                        notJsonRpc.add(line);
                      }
                    }
                    messages.add(message);
                  } catch (IOException e) {
                    synchronized (notJsonRpc) {
                      notJsonRpc.add(line);
                    }
                  }
                }
              } catch (IOException e) {
                // the process ended
              }
            },
            "stdio-client-stdout-" + who);
    stdout.setDaemon(true);
    stdout.start();
    if (stderrOf == null) {
      return;
    }
    Thread errors =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(new InputStreamReader(stderrOf, StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                  stderr.add(line);
                }
              } catch (IOException e) {
                // the process ended
              }
            },
            "stdio-client-stderr-" + who);
    errors.setDaemon(true);
    errors.start();
  }

  /** {@code java -jar mcp-supervisor.jar ARGS}, its stdin and stdout this client's. */
  static StdioClient jar(String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add(JarProcess.warmupCalls(0));
    command.add("-jar");
    command.add(JarProcess.jar().toString());
    command.addAll(List.of(args));
    return of(command);
  }

  static StdioClient of(List<String> command) {
    try {
      Process process = new ProcessBuilder(command).start();
      return new StdioClient(
          process,
          process.getOutputStream(),
          process.getInputStream(),
          process.getErrorStream(),
          Long.toString(process.pid()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + command, e);
    }
  }

  /** A client of a front in this JVM that reads {@code stdin} and writes {@code stdout}. */
  static StdioClient on(OutputStream stdin, InputStream stdout) {
    return new StdioClient(null, stdin, stdout, null, "in-jvm");
  }

  /** Writes one line on the process's stdin. */
  void send(String line) {
    try {
      stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      stdin.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void send(JsonNode message) {
    send(message.toString());
  }

  /** Sends a request and answers its response; other messages before it go to {@code others}. */
  JsonNode request(Object id, String method, JsonNode params, List<JsonNode> others) {
    ObjectNode request = JSON.createObjectNode().put("jsonrpc", "2.0").put("method", method);
    request.set("id", JSON.valueToTree(id));
    if (params != null) {
      request.set("params", params);
    }
    send(request);
    return until(JSON.valueToTree(id), others);
  }

  JsonNode request(Object id, String method, JsonNode params) {
    return request(id, method, params, new ArrayList<>());
  }

  /** The names tools/list (request {@code id}) answers. */
  List<String> toolNames(Object id) {
    List<String> names = new ArrayList<>();
    request(id, "tools/list", null)
        .path("result")
        .path("tools")
        .forEach(tool -> names.add(tool.path("name").asText()));
    return names;
  }

  void notify(String method) {
    send(JSON.createObjectNode().put("jsonrpc", "2.0").put("method", method));
  }

  /** The next message, bounded. */
  JsonNode next() {
    try {
      JsonNode message = messages.poll(ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      if (message == null) {
        throw new AssertionError(
            "no message within " + ANSWER_TIMEOUT + "; stderr:\n" + String.join("\n", stderr));
      }
      return message;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Messages until the response to {@code id}; the others go to {@code others}. */
  JsonNode until(JsonNode id, List<JsonNode> others) {
    while (true) {
      JsonNode message = next();
      if (!message.has("method") && id.equals(message.get("id"))) {
        return message;
      }
      others.add(message);
    }
  }

  /**
   * What both stdio fronts' tests check first, on the fixture server behind the front (ids 0 to 4):
   * an {@code initialize} that declares sampling answered at 2025-11-25; an echo; progress on the
   * call's stream, each value in order and before the answer; a sampling round the client answers
   * on stdin. Answers the tools listed.
   */
  List<String> fixtureBasics() {
    JsonNode initialized = request(0, "initialize", initializeParams("{\"sampling\":{}}"));
    assertEquals(
        "2025-11-25",
        initialized.path("result").path("protocolVersion").asText(),
        initialized.toString());
    notify("notifications/initialized");
    List<String> tools = toolNames(1);
    assertEquals(
        "hello",
        text(request(2, "tools/call", toolCall("fixture__echo", "{\"message\":\"hello\"}"))));

    ObjectNode progress = toolCall("fixture__progress", "{\"steps\":3}");
    progress.putObject("_meta").put("progressToken", "p1");
    List<JsonNode> during = new ArrayList<>();
    JsonNode done = request(3, "tools/call", progress, during);
    assertEquals("done 3", text(done), done.toString());
    assertEquals(
        List.of(1, 2, 3),
        during.stream()
            .filter(m -> "notifications/progress".equals(m.path("method").asText()))
            .map(m -> m.path("params").path("progress").asInt())
            .toList(),
        during.toString());

    ObjectNode sample = JSON.createObjectNode().put("jsonrpc", "2.0");
    sample.put("id", 4).put("method", "tools/call");
    sample.set("params", toolCall("fixture__sample", "{\"prompt\":\"Your name?\"}"));
    send(sample);
    JsonNode asked = next();
    for (int i = 0;
        i < 20 && !"sampling/createMessage".equals(asked.path("method").asText());
        i++) {
      asked = next();
    }
    assertEquals("sampling/createMessage", asked.path("method").asText(), asked.toString());
    ObjectNode answer = JSON.createObjectNode().put("jsonrpc", "2.0");
    answer.set("id", asked.get("id"));
    answer.set(
        "result",
        JSON.createObjectNode()
            .put("role", "assistant")
            .put("model", "test")
            .set("content", JSON.createObjectNode().put("type", "text").put("text", "Ada")));
    send(answer);
    assertEquals("Ada", text(until(JSON.valueToTree(4), new ArrayList<>())));
    return tools;
  }

  static ObjectNode initializeParams(String capabilities) {
    try {
      ObjectNode params = JSON.createObjectNode().put("protocolVersion", "2025-11-25");
      params.set("capabilities", JSON.readTree(capabilities));
      params.putObject("clientInfo").put("name", "stdio-test").put("version", "1");
      return params;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ObjectNode toolCall(String name, String arguments) {
    try {
      ObjectNode params = JSON.createObjectNode().put("name", name);
      params.set("arguments", JSON.readTree(arguments));
      return params;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String text(JsonNode response) {
    return response.path("result").path("content").path(0).path("text").asText();
  }

  /** Closes stdin: the process should end. */
  void closeStdin() {
    try {
      stdin.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String stderrText() {
    return String.join("\n", stderr);
  }

  @Override
  public void close() {
    if (process != null) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }
}
