package dev.mcpsupervisor.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A live SSE response read event by event (a thread parses its lines into a queue), which the test
 * may drop at any point like a client that goes away.
 */
final class SseEvents implements AutoCloseable {

  /** One event: its id (null: none), retry (null: none) and data ("" for a priming event). */
  record Event(String id, String retry, String data) {
    JsonNode json() {
      return TestGateway.json(data);
    }
  }

  /** The queue's mark that the stream ended. */
  private static final Event END = new Event(null, null, null);

  private final HttpResponse<Stream<String>> response;
  private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final Thread reader;

  SseEvents(HttpResponse<Stream<String>> response) {
    this.response = response;
    this.reader = new Thread(this::read, "sse-events");
    reader.setDaemon(true);
    reader.start();
  }

  /** Every event of a complete SSE body. */
  static List<Event> parse(String body) {
    List<Event> parsed = new ArrayList<>();
    parse(body.lines().iterator(), parsed::add);
    return parsed;
  }

  int status() {
    return response.statusCode();
  }

  /** The next event, or null when the stream ended first. */
  Event next() throws InterruptedException {
    Event event = events.poll(TestGateway.REQUEST_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    if (event == null) {
      throw new AssertionError("no event within " + TestGateway.REQUEST_TIMEOUT);
    }
    return event == END ? null : event;
  }

  /** Every event until the stream ends. */
  List<Event> rest() throws InterruptedException {
    List<Event> rest = new ArrayList<>();
    for (Event event = next(); event != null; event = next()) {
      rest.add(event);
    }
    return rest;
  }

  /** Whether the stream ended within {@code wait} (no more events came). */
  boolean endsWithin(Duration wait) throws InterruptedException {
    Event event = events.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
    if (event != null && event != END) {
      throw new AssertionError("an event came instead of the end: " + event);
    }
    return event == END;
  }

  /** The client goes away: the connection is dropped. */
  @Override
  public void close() throws InterruptedException {
    response.body().close();
    reader.join(10_000);
  }

  private void read() {
    try {
      parse(response.body().iterator(), events::add);
    } catch (RuntimeException closed) {
      // the test dropped the stream
    } finally {
      events.add(END);
    }
  }

  private static void parse(Iterator<String> lines, java.util.function.Consumer<Event> sink) {
    String id = null;
    String retry = null;
    StringBuilder data = null;
    while (lines.hasNext()) {
      String line = lines.next();
      if (line.isEmpty()) {
        if (data != null) {
          sink.accept(new Event(id, retry, data.toString()));
        }
        id = null;
        retry = null;
        data = null;
      } else if (line.startsWith("id:")) {
        id = line.substring(3).trim();
      } else if (line.startsWith("retry:")) {
        retry = line.substring(6).trim();
      } else if (line.startsWith("data:")) {
        data = (data == null ? new StringBuilder() : data.append('\n'));
        data.append(line.substring(5).trim());
      }
    }
  }
}
