package dev.mcpsupervisor.upstream;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A loopback HTTP server whose answers the test scripts, recording every request: for what the
 * fixture cannot show (exact headers, error statuses, event ids, misbehaving servers).
 */
final class ScriptedHttpServer implements AutoCloseable {

  /** One request as the server saw it. */
  record Recorded(String method, URI uri, Map<String, List<String>> headers, String body) {
    String header(String name) {
      return headers.entrySet().stream()
          .filter(header -> header.getKey().equalsIgnoreCase(name))
          .map(header -> header.getValue().get(0))
          .findFirst()
          .orElse(null);
    }
  }

  /** Answers one request. */
  interface Script {
    void answer(Recorded request, HttpExchange exchange) throws IOException;
  }

  final LinkedBlockingQueue<Recorded> requests = new LinkedBlockingQueue<>();
  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();

  ScriptedHttpServer(Script script) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(threads);
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            String body =
                new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Recorded request =
                new Recorded(
                    exchange.getRequestMethod(),
                    exchange.getRequestURI(),
                    Map.copyOf(exchange.getRequestHeaders()),
                    body);
            requests.add(request);
            script.answer(request, exchange);
          }
        });
    server.start();
  }

  URI url(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  Recorded next() throws InterruptedException {
    Recorded request = requests.poll(RecordingListener.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    if (request == null) {
      throw new AssertionError("no request within " + RecordingListener.WAIT);
    }
    return request;
  }

  static void respond(HttpExchange exchange, int status, String contentType, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    if (contentType != null) {
      exchange.getResponseHeaders().add("Content-Type", contentType);
    }
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  /**
   * Starts an event stream and writes {@code events} (already in wire form); the caller decides
   * when it ends.
   */
  static OutputStream startEventStream(HttpExchange exchange, String events) throws IOException {
    exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
    exchange.sendResponseHeaders(200, 0);
    OutputStream out = exchange.getResponseBody();
    out.write(events.getBytes(StandardCharsets.UTF_8));
    out.flush();
    return out;
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
