package dev.mcpsupervisor.app.stdio;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;

/** A Streamable HTTP endpoint at a URL, on the JDK's HTTP client: {@code connect}'s. */
final class HttpEndpoint implements Endpoint {

  private final URI uri;
  private final ExecutorService threads =
      Executors.newCachedThreadPool(
          runnable -> {
            Thread thread = new Thread(runnable, "mcp-supervisor-connect-http");
            thread.setDaemon(true);
            return thread;
          });
  private final HttpClient http = HttpClient.newBuilder().executor(threads).build();

  HttpEndpoint(URI uri) {
    this.uri = uri;
  }

  @Override
  public Answer send(String method, Map<String, String> headers, byte[] body, Duration timeout)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri);
    headers.forEach(request::header);
    if (timeout != null) {
      request.timeout(timeout);
    }
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(body));
    HttpResponse<Stream<String>> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofLines());
    return new Answer(
        response.statusCode(), name -> response.headers().firstValue(name), response.body());
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }

  @Override
  public String toString() {
    return uri.toString();
  }
}
