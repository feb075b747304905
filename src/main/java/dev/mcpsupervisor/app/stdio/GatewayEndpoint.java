package dev.mcpsupervisor.app.stdio;

import dev.mcpsupervisor.http.GatewayServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.scaladsl.model.IllegalHeaderException;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * The gateway in this JVM as the bridge's endpoint ({@code stdio}): each request is a Pekko HTTP
 * request object handed to the gateway's routes ({@link GatewayServer#handle}) and each answer read
 * from the response object, so the client gets the same checks, sessions and answers as over a
 * loopback connection, without the socket, the HTTP/1.1 codec on either side or the JDK's HTTP
 * client (docs/benchmarks.md, "The stdio front's cost per call").
 */
final class GatewayEndpoint implements Endpoint {

  private static final String CONTENT_TYPE = "Content-Type";
  private static final byte NEWLINE = '\n';

  private final GatewayServer gateway;
  private final URI uri;

  /** Every request's URI and Host. */
  private final HttpRequest template;

  private final Materializer materializer;

  /**
   * @param uri the endpoint's URL on the gateway's own address: its path is routed, its authority
   *     is the request's Host
   */
  GatewayEndpoint(GatewayServer gateway, URI uri, Materializer materializer) {
    this.gateway = gateway;
    this.uri = uri;
    this.template =
        HttpRequest.create(uri.toString()).addHeader(parsed("Host", uri.getRawAuthority()));
    this.materializer = materializer;
  }

  @Override
  public Answer send(String method, Map<String, String> headers, byte[] body, Duration timeout)
      throws IOException, InterruptedException {
    List<HttpHeader> sent = new ArrayList<>(headers.size());
    // a request without one is application/octet-stream, as Pekko's parser makes it
    ContentType type = ContentTypes.APPLICATION_OCTET_STREAM;
    for (Map.Entry<String, String> header : headers.entrySet()) {
      if (CONTENT_TYPE.equalsIgnoreCase(header.getKey())) {
        type = ContentTypes.parse(header.getValue()); // the entity's, not a header, in Pekko
      } else {
        sent.add(parsed(header.getKey(), header.getValue()));
      }
    }
    HttpRequest request =
        template.withMethod(HttpMethods.lookup(method).orElseThrow()).addHeaders(sent);
    if (body != null) {
      request = request.withEntity(HttpEntities.create(type, body));
    }
    CompletableFuture<HttpResponse> answer = gateway.handle(request).toCompletableFuture();
    HttpResponse response;
    try {
      response =
          timeout == null ? answer.get() : answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw new IOException("the gateway failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      answer.thenAccept(late -> late.discardEntityBytes(materializer));
      throw new IOException("no answer within " + timeout, e);
    }
    HttpEntity entity = response.entity();
    // the content type is the entity's in Pekko; an empty answer goes out without one
    Optional<String> contentType =
        entity.isKnownEmpty() ? Optional.empty() : Optional.of(entity.getContentType().toString());
    return new Answer(
        response.status().intValue(),
        name ->
            CONTENT_TYPE.equalsIgnoreCase(name)
                ? contentType
                : response.getHeader(name).map(HttpHeader::value),
        lines(entity, materializer));
  }

  /**
   * A header as the server's parser makes it from the wire: a modelled one when Pekko knows its
   * name (Accept, Authorization, ...), else, or when its value does not parse, a raw one.
   */
  private static HttpHeader parsed(String name, String value) {
    try {
      return HttpHeader.parse(name, value);
    } catch (IllegalHeaderException e) {
      return RawHeader.create(name, value);
    }
  }

  /**
   * The entity's lines as they come: a JSON answer at once, an SSE stream line by line while it
   * lasts (closing the stream cancels the rest; a stream that fails or is cancelled while read ends
   * the read with an {@link UncheckedIOException}, as a broken connection does).
   */
  static Stream<String> lines(HttpEntity entity, Materializer materializer) {
    if (entity instanceof HttpEntity.Strict strict) {
      return strict.getData().utf8String().lines();
    }
    return lines(entity.getDataBytes(), materializer);
  }

  static Stream<String> lines(Source<ByteString, ?> bytes, Materializer materializer) {
    SinkQueueWithCancel<ByteString> queue = bytes.runWith(Sink.queue(), materializer);
    Iterator<String> each =
        new Iterator<>() {
          /** Lines read and not yet taken: those before a failure are taken before it. */
          private final Deque<String> ready = new ArrayDeque<>();

          /** The bytes after the last line end, a line's beginning. */
          private ByteString partial = ByteString.emptyByteString();

          private boolean ended;

          @Override
          public boolean hasNext() {
            while (ready.isEmpty() && !ended) {
              Optional<ByteString> chunk;
              try {
                chunk = queue.pull().toCompletableFuture().join();
              } catch (CompletionException | CancellationException e) {
                throw new UncheckedIOException(
                    new IOException("the gateway's stream ended: " + e.getCause(), e));
              }
              if (chunk.isEmpty()) {
                ended = true;
                if (!partial.isEmpty()) {
                  ready.add(line(partial));
                }
              } else {
                split(partial.concat(chunk.get()));
              }
            }
            return !ready.isEmpty();
          }

          @Override
          public String next() {
            if (!hasNext()) {
              throw new NoSuchElementException();
            }
            return ready.poll();
          }

          /** Bytes, not text, are split: a character cut between two chunks stays whole. */
          private void split(ByteString bytes) {
            int from = 0;
            for (int end = bytes.indexOf(NEWLINE, from);
                end >= 0;
                end = bytes.indexOf(NEWLINE, from)) {
              ready.add(line(bytes.slice(from, end)));
              from = end + 1;
            }
            partial = bytes.drop(from);
          }
        };
    return StreamSupport.stream(
            Spliterators.spliteratorUnknownSize(each, Spliterator.ORDERED | Spliterator.NONNULL),
            false)
        .onClose(queue::cancel);
  }

  /** A line's text, without the CR of a CRLF line end. */
  private static String line(ByteString bytes) {
    String text = bytes.utf8String();
    return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
  }

  @Override
  public void close() {
    // the gateway is its application's to stop
  }

  @Override
  public String toString() {
    return uri.toString();
  }
}
