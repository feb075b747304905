package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ParamHeaders;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.config.UpstreamLimits;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * MCP Streamable HTTP as revision 2026-07-28 has it, client side: no session, every request its own
 * POST with the headers that mirror its body ({@code MCP-Protocol-Version} from its {@code _meta},
 * {@code Mcp-Method}, {@code Mcp-Name} for tools/call, prompts/get and resources/read). The answer
 * comes as a JSON body or on an SSE stream after the request's notifications, all delivered with
 * the request's id as the related id. Cancelling a request closes its stream (a {@code
 * notifications/cancelled} naming one in flight is not POSTed: the disconnect is the cancel).
 *
 * <p>Failures are the request's own: {@code send}'s stage completes once the answer was delivered
 * and fails when none will come (an HTTP error without a JSON-RPC body, a broken stream). Only a
 * server that cannot be reached at all ends the connection.
 */
final class StatelessHttpConnection implements UpstreamConnection {

  private final HttpClient client;
  private final URI url;
  private final List<Map.Entry<String, String>> headers;
  private final ConnectionEvents events;
  private final UpstreamLimits limits;
  private final AtomicBoolean closing = new AtomicBoolean();

  /** Requests waiting for their answer, by id, so that a cancel can close the right stream. */
  private final Map<String, Post> inFlight = new ConcurrentHashMap<>();

  private final Map<String, ParamHeaders.Declarations> toolHeaders = new ConcurrentHashMap<>();

  StatelessHttpConnection(
      HttpClient client,
      URI url,
      List<Map.Entry<String, String>> headers,
      String name,
      UpstreamLimits limits,
      ConnectionListener listener) {
    this.client = client;
    this.url = url;
    this.headers = headers;
    this.limits = limits;
    this.events = new ConnectionEvents(name, listener);
  }

  @Override
  public CompletionStage<Void> send(JsonRpcMessage message) {
    if (closing.get() || events.isClosed()) {
      return events.sendAfterClose();
    }
    if (message instanceof JsonRpcNotification notification
        && McpMethods.NOTIFICATION_CANCELLED.equals(notification.method())
        && notification.params() != null) {
      Post cancelled = inFlight.remove(JsonRpcIds.key(notification.params().path("requestId")));
      if (cancelled != null) {
        cancelled.abort();
        return CompletableFuture.completedFuture(null);
      }
    }
    if (message instanceof JsonRpcResponse) {
      // 2026-07-28 servers send no requests: there is nothing to answer
      return CompletableFuture.completedFuture(null);
    }
    JsonRpcRequest request = message instanceof JsonRpcRequest sent ? sent : null;
    Post post =
        new Post(request == null ? null : request.id(), request == null ? null : request.method());
    JsonNode requestId = post.requestId;
    if (requestId != null) {
      inFlight.put(JsonRpcIds.key(requestId), post);
    }
    post.exchange = client.sendAsync(httpRequest(message), post);
    post.exchange.whenComplete(post::finish);
    return post.done;
  }

  /**
   * The {@code x-mcp-header} parameters of the tools a list answer shows (SEP-2243): a call to one
   * of them mirrors those arguments into {@code Mcp-Param-*} headers, which the server checks. A
   * tool not listed yet is called without them (the server may refuse it with -32020).
   */
  private void learnToolHeaders(JsonNode listResult) {
    for (JsonNode tool : listResult.path("tools")) {
      String name = tool.path("name").asText(null);
      if (name != null) {
        ParamHeaders.Declarations declared = ParamHeaders.declarations(tool.path("inputSchema"));
        if (declared.headers().isEmpty()) {
          toolHeaders.remove(name);
        } else {
          toolHeaders.put(name, declared);
        }
      }
    }
  }

  private HttpRequest httpRequest(JsonRpcMessage message) {
    HttpRequest.Builder builder =
        HttpTransport.request(url, headers)
            .header("Accept", HttpTransport.JSON + ", " + HttpTransport.EVENT_STREAM)
            .header("Content-Type", HttpTransport.JSON);
    String method = null;
    JsonNode params = null;
    if (message instanceof JsonRpcRequest request) {
      method = request.method();
      params = request.params();
      String name = StatelessEnvelope.nameOf(request);
      if (name != null) {
        builder.header(StatelessEnvelope.NAME_HEADER, ParamHeaders.encode(name));
      }
      if (McpMethods.TOOLS_CALL.equals(method) && name != null) {
        ParamHeaders.Declarations declared = toolHeaders.get(name);
        if (declared != null) {
          ParamHeaders.headersFor(declared, params.path("arguments")).forEach(builder::header);
        }
      }
    } else if (message instanceof JsonRpcNotification notification) {
      method = notification.method();
      params = notification.params();
    }
    builder.header(StatelessEnvelope.METHOD_HEADER, ParamHeaders.encode(method));
    String version =
        params == null
            ? null
            : params
                .path(StatelessEnvelope.META)
                .path(StatelessEnvelope.META_PROTOCOL_VERSION)
                .asText(null);
    if (version != null) {
      builder.header(StatelessEnvelope.PROTOCOL_VERSION_HEADER, version);
    }
    return builder
        .timeout(limits.httpTimeout())
        .POST(HttpRequest.BodyPublishers.ofByteArray(JsonRpcCodec.toBytes(message)))
        .build();
  }

  @Override
  public CompletionStage<Void> close() {
    if (closing.compareAndSet(false, true)) {
      events.close(ConnectionClosed.Kind.CLOSED_BY_US, "closed by the supervisor");
      inFlight.values().forEach(Post::abort);
      inFlight.clear();
    }
    return CompletableFuture.completedFuture(null); // no session to end on the server
  }

  @Override
  public OptionalLong pid() {
    return OptionalLong.empty();
  }

  /** One POST: a JSON body or an SSE stream, decided when the headers arrive. */
  private final class Post implements HttpResponse.BodyHandler<byte[]>, SseStream.Handler {

    final CompletableFuture<Void> done = new CompletableFuture<>();
    private final JsonNode requestId;
    private final String method;
    volatile CompletableFuture<HttpResponse<byte[]>> exchange;
    private volatile SseStream stream;
    private volatile boolean answered;
    private volatile boolean aborted;

    Post(JsonNode requestId, String method) {
      this.requestId = requestId;
      this.method = method;
    }

    /** The request was cancelled: its stream is closed, and nothing more is delivered for it. */
    void abort() {
      aborted = true;
      SseStream open = stream;
      if (open != null) {
        open.cancel();
      }
      CompletableFuture<HttpResponse<byte[]>> pending = exchange;
      if (pending != null) {
        pending.cancel(true);
      }
      done.complete(null);
    }

    @Override
    public BodySubscriber<byte[]> apply(ResponseInfo info) {
      if (HttpTransport.isSuccess(info.statusCode())
          && HttpTransport.isEventStream(info.headers())) {
        SseStream opened = new SseStream(this, limits.maxMessageBytes());
        stream = opened;
        if (aborted || closing.get()) {
          opened.cancel();
        }
        return BodySubscribers.mapping(opened.bodySubscriber(), ended -> null);
      }
      return BoundedBodySubscriber.of(info, limits.maxMessageBytes());
    }

    @Override
    public void onEvent(SseEvent event) {
      if (!aborted && SseEvent.DEFAULT_TYPE.equals(event.type())) {
        deliver(event.data().getBytes(StandardCharsets.UTF_8));
      }
    }

    @Override
    public void onEnd(Throwable error) {
      if (!aborted && HttpAnswers.answeredTooLarge(events, requestId, error)) {
        answered = true;
      }
      if (!aborted && error == null && requestId != null && !answered) {
        // a stream that ends without its answer fails its request, not the connection
        deliver(BadAnswers.to(requestId, "its response stream ended without an answer"));
      }
      ended(
          error == null
              ? "the response stream ended without an answer"
              : "the response stream broke: " + HttpTransport.describe(error));
    }

    private void deliver(byte[] payload) {
      events.payload(payload, requestId, this::noteAnswer);
    }

    private void deliver(JsonRpcResponse badAnswer) {
      events.message(noteAnswer(badAnswer), requestId);
    }

    private JsonRpcMessage noteAnswer(JsonRpcMessage message) {
      if (message instanceof JsonRpcResponse response
          && requestId != null
          && JsonRpcIds.key(requestId).equals(JsonRpcIds.key(response.id()))) {
        answered = true;
        if (McpMethods.TOOLS_LIST.equals(method) && response.result() != null) {
          learnToolHeaders(response.result());
        }
      }
      return message;
    }

    void finish(HttpResponse<byte[]> response, Throwable failure) {
      if (stream != null && failure == null) {
        return; // the stream reports its own end
      }
      if (failure != null) {
        if (!aborted && !answered && HttpAnswers.answeredTooLarge(events, requestId, failure)) {
          answered = true;
        }
        if (!aborted && !closing.get() && HttpTransport.isUnreachable(failure)) {
          events.close(
              ConnectionClosed.Kind.TRANSPORT_ERROR,
              "server unreachable: " + HttpTransport.describe(failure));
        }
        ended("POST failed: " + HttpTransport.describe(failure));
        return;
      }
      int status = response.statusCode();
      byte[] body = response.body();
      if (HttpTransport.isSuccess(status)) {
        if (body.length > 0 && HttpTransport.isJson(response.headers())) {
          deliver(body);
        }
        if (body.length > 0 && requestId != null && !answered) {
          // a body that answers nothing fails its request, not the connection
          deliver(
              BadAnswers.to(
                  requestId,
                  HttpTransport.isJson(response.headers())
                      ? "its body holds no response to it"
                      : "a body of type "
                          + response.headers().firstValue("Content-Type").orElse("(none)")));
        }
        ended(null);
      } else if (requestId != null && HttpAnswers.deliverErrorAnswer(events, body, requestId)) {
        answered = true;
        ended(null);
      } else {
        ended("HTTP " + status + ": " + HttpTransport.preview(body));
      }
    }

    /**
     * The exchange is over: its stage completes when its answer came (or it was cancelled, or it
     * was a notification), else fails with {@code problem}.
     */
    private void ended(String problem) {
      if (requestId != null) {
        inFlight.remove(JsonRpcIds.key(requestId), this);
      }
      if (aborted || answered || (requestId == null && problem == null)) {
        done.complete(null);
        return;
      }
      IOException failure =
          new IOException(events.name() + ": " + (problem == null ? "no answer" : problem));
      if (events.isClosed()) {
        events.failAfterClose(done, failure); // the session hears of the end first
      } else {
        done.completeExceptionally(failure);
      }
    }
  }
}
