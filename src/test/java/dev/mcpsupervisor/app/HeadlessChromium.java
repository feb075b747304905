package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.app.runtime.ChildProcesses;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debian's Chromium, headless, with one page open, driven over the DevTools protocol (a WebSocket:
 * {@code Runtime.evaluate}, {@code Page.captureScreenshot}) with the JDK's own client. Started with
 * a fresh profile and the flags this machine's closed network needs; {@link #close()} ends it and
 * its children by PID.
 */
final class HeadlessChromium implements AutoCloseable {

  /** Where Debian puts it; {@code -Dchromium=...} points elsewhere. */
  static final Path BINARY = Path.of(System.getProperty("chromium", "/usr/bin/chromium"));

  private static final Pattern DEVTOOLS = Pattern.compile("DevTools listening on (ws://\\S+)");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final Path profile;
  private final WebSocket socket;
  private final AtomicLong ids = new AtomicLong();
  private final Map<Long, CompletableFuture<JsonNode>> answers = new ConcurrentHashMap<>();

  /** Skips the test, saying why, where there is no Chromium. */
  static void assumeInstalled() {
    assumeTrue(
        Files.isExecutable(BINARY),
        "no Chromium at "
            + BINARY
            + " (apt-get install chromium; .ci/run installs it and fails if this test was skipped)");
  }

  /** Opens {@code url} in a new headless browser of {@code width} × {@code height} pixels. */
  static HeadlessChromium open(String url, int width, int height) throws Exception {
    Path profile = Files.createTempDirectory("chromium-profile");
    Process process =
        new ProcessBuilder(
                command(
                    profile,
                    "--window-size=" + width + "," + height,
                    "--remote-debugging-address=127.0.0.1",
                    "--remote-debugging-port=0",
                    url))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      URI browser = URI.create(devToolsAddress(process));
      HttpClient http = HttpClient.newHttpClient();
      URI pages = URI.create("http://" + browser.getAuthority() + "/json/list");
      String pageSocket = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (pageSocket == null && System.nanoTime() < deadline) {
        for (JsonNode target :
            JSON.readTree(
                http.send(
                        HttpRequest.newBuilder(pages).build(), HttpResponse.BodyHandlers.ofString())
                    .body())) {
          if (target.path("type").asText().equals("page")) {
            pageSocket = target.path("webSocketDebuggerUrl").asText();
          }
        }
        if (pageSocket == null) {
          Thread.sleep(100); // polling the browser's target list with a bound
        }
      }
      if (pageSocket == null) {
        throw new IllegalStateException("Chromium opened no page");
      }
      return new HeadlessChromium(process, profile, http, URI.create(pageSocket));
    } catch (Exception | Error e) {
      ChildProcesses.end(process, Duration.ofSeconds(5));
      throw e;
    }
  }

  /**
   * Headless, with a fresh profile, and without the background traffic a closed network refuses.
   */
  private static List<String> command(Path profile, String... more) {
    List<String> command = new ArrayList<>();
    command.add(BINARY.toString());
    command.addAll(
        List.of(
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--user-data-dir=" + profile));
    command.addAll(List.of(more));
    return command;
  }

  private HeadlessChromium(Process process, Path profile, HttpClient http, URI page)
      throws Exception {
    this.process = process;
    this.profile = profile;
    this.socket =
        http.newWebSocketBuilder().buildAsync(page, new Listener()).get(10, TimeUnit.SECONDS);
  }

  /** The value of a JavaScript expression in the page (JSON-serializable), or null. */
  JsonNode evaluate(String expression) throws Exception {
    ObjectNode params = JSON.createObjectNode().put("expression", expression);
    params.put("returnByValue", true);
    JsonNode result = call("Runtime.evaluate", params);
    return result.path("result").path("value");
  }

  /**
   * Turns JavaScript off for what the page loads from now on (as a user's browser setting would).
   */
  void disableScripts() throws Exception {
    call("Emulation.setScriptExecutionDisabled", JSON.createObjectNode().put("value", true));
  }

  void navigate(String url) throws Exception {
    call("Page.navigate", JSON.createObjectNode().put("url", url));
  }

  /** The page's document as HTML, read through the DOM domain (no script of the page runs). */
  String html() throws Exception {
    long root =
        call("DOM.getDocument", JSON.createObjectNode()).path("root").path("nodeId").asLong();
    return call("DOM.getOuterHTML", JSON.createObjectNode().put("nodeId", root))
        .path("outerHTML")
        .asText();
  }

  /** A PNG of the page as it is now. */
  byte[] screenshot() throws Exception {
    JsonNode result = call("Page.captureScreenshot", JSON.createObjectNode().put("format", "png"));
    return Base64.getDecoder().decode(result.path("data").asText());
  }

  private JsonNode call(String method, ObjectNode params) throws Exception {
    long id = ids.incrementAndGet();
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    answers.put(id, answer);
    ObjectNode message = JSON.createObjectNode().put("id", id).put("method", method);
    message.set("params", params);
    socket.sendText(JSON.writeValueAsString(message), true).get(10, TimeUnit.SECONDS);
    JsonNode reply = answer.get(20, TimeUnit.SECONDS);
    if (reply.has("error")) {
      throw new IllegalStateException(method + ": " + reply.path("error"));
    }
    return reply.path("result");
  }

  @Override
  public void close() {
    socket.abort();
    ChildProcesses.end(process, Duration.ofSeconds(10));
    delete(profile);
  }

  private static void delete(Path profile) {
    try (var files = Files.walk(profile)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads stderr until Chromium says where its DevTools listen; the rest is drained and dropped.
   */
  private static String devToolsAddress(Process process) throws Exception {
    CompletableFuture<String> address = new CompletableFuture<>();
    List<String> seen = new ArrayList<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader err =
                  new BufferedReader(
                      new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                for (String line = err.readLine(); line != null; line = err.readLine()) {
                  Matcher matcher = DEVTOOLS.matcher(line);
                  if (matcher.find()) {
                    address.complete(matcher.group(1));
                  } else if (!address.isDone() && seen.size() < 50) {
                    seen.add(line);
                  }
                }
              } catch (IOException ended) {
                // the browser is gone
              }
              address.completeExceptionally(
                  new IllegalStateException(
                      "Chromium ended before its DevTools listened: " + seen));
            },
            "chromium-stderr");
    reader.setDaemon(true);
    reader.start();
    return address.get(30, TimeUnit.SECONDS);
  }

  /** Collects a message's text frames, then completes the call it answers. */
  private final class Listener implements WebSocket.Listener {
    private final StringBuilder partial = new StringBuilder();

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        try {
          JsonNode message = JSON.readTree(partial.toString());
          CompletableFuture<JsonNode> answer = answers.remove(message.path("id").asLong(-1));
          if (answer != null) {
            answer.complete(message);
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        } finally {
          partial.setLength(0);
        }
      }
      webSocket.request(1);
      return null;
    }
  }
}
