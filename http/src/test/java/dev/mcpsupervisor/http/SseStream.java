package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * An open SSE response (a subscriptions/listen stream, a GET stream), its messages read on a thread
 * of its own into a queue. Closing it hangs up, as a client that leaves does.
 */
final class SseStream implements AutoCloseable {

  private final HttpResponse<Stream<String>> response;
  private final BlockingQueue<JsonNode> frames = new LinkedBlockingQueue<>();

  private SseStream(HttpResponse<Stream<String>> response) {
    this.response = response;
    Thread reader =
        new Thread(
            () -> {
              try {
                response
                    .body()
                    // a resumable stream's priming event carries an empty data line, no message
                    .filter(line -> line.startsWith("data:") && !line.substring(5).isBlank())
                    .forEach(line -> frames.add(json(line.substring(5).trim())));
              } catch (RuntimeException closed) {
                // the stream was closed under the reader: that is how a test hangs up
              }
            },
            "sse-reader");
    reader.setDaemon(true);
    reader.start();
  }

  /** Sends {@code request} and waits for its 200 and headers (at most 10 s). */
  static SseStream open(TestGateway gateway, HttpRequest request) {
    return opening(gateway, request).join();
  }

  /** Sends {@code request}; the stream once its 200 and headers are in. */
  static CompletableFuture<SseStream> opening(TestGateway gateway, HttpRequest request) {
    return gateway
        .http
        .sendAsync(request, HttpResponse.BodyHandlers.ofLines())
        .orTimeout(10, TimeUnit.SECONDS)
        .thenApply(
            response -> {
              assertEquals(200, response.statusCode());
              return new SseStream(response);
            });
  }

  /** The next message, failing after 10 s. */
  JsonNode next() throws InterruptedException {
    JsonNode frame = poll(Duration.ofSeconds(10));
    assertTrue(frame != null, "no frame within 10 s");
    return frame;
  }

  JsonNode poll(Duration wait) throws InterruptedException {
    return frames.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    response.body().close();
  }
}
