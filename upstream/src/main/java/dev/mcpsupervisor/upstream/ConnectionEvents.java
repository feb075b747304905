package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.protocol.jsonrpc.ParsedPayload;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one door from a connection's threads to its {@link ConnectionListener}: calls are serialized
 * (a connection reads on several threads: stdout and process exit, or several HTTP streams),
 * nothing is delivered after the close, and {@code onClosed} happens at most once. Also turns raw
 * payloads into messages; what is not JSON-RPC is logged and skipped, never fatal.
 */
final class ConnectionEvents {

  private static final Logger log = LoggerFactory.getLogger(ConnectionEvents.class);
  private static final int PREVIEW_CHARS = 200;
  private static final long CLOSE_REPORT_WAIT_MILLIS = 1_000;

  private final String name;
  private final ConnectionListener listener;
  private final RateLimitedLog junkLog = new RateLimitedLog(log, 10);
  private boolean closed;
  private final CompletableFuture<Void> closeReported = new CompletableFuture<>();

  /**
   * @param name the connection as logs name it (never holding a secret)
   */
  ConnectionEvents(String name, ConnectionListener listener) {
    this.name = name;
    this.listener = listener;
  }

  /**
   * Parses one payload (a stdio line, an HTTP body, an SSE event's data) and delivers what it
   * holds, in order: a message, a batch, or messages on separate lines (out of spec for an HTTP
   * body, but servers send a progress notification and then the response so). What is not JSON-RPC
   * is logged and skipped, never fatal. Returns whether it answered our request {@code
   * relatedRequestId}: an HTTP body that does not fails that request ({@link BadAnswers}).
   */
  boolean payload(
      byte[] payload, JsonNode relatedRequestId, UnaryOperator<JsonRpcMessage> inspect) {
    List<JsonRpcMessage> messages = new ArrayList<>();
    String problem = read(JsonRpcCodec.parse(payload), payload, messages);
    boolean answered = false;
    for (JsonRpcMessage message : messages) {
      JsonRpcMessage seen = inspect.apply(message);
      answered |=
          relatedRequestId != null
              && seen instanceof JsonRpcResponse response
              && JsonRpcIds.same(response.id(), relatedRequestId);
      message(seen, relatedRequestId);
    }
    if (problem != null) {
      skipped(problem, payload);
    }
    return answered;
  }

  boolean payload(byte[] payload, JsonNode relatedRequestId) {
    return payload(payload, relatedRequestId, UnaryOperator.identity());
  }

  /**
   * Adds the messages {@code parsed} holds to {@code messages}; returns what was not JSON-RPC in
   * it, or null. A payload that is not one JSON value is read line by line.
   */
  private static String read(ParsedPayload parsed, byte[] payload, List<JsonRpcMessage> messages) {
    if (parsed instanceof ParsedPayload.Single single) {
      messages.add(single.message());
      return null;
    }
    if (parsed instanceof ParsedPayload.Batch batch) {
      String problem = null;
      for (ParsedPayload.Element element : batch.elements()) {
        if (element.message() != null) {
          messages.add(element.message());
        } else if (problem == null) {
          problem = element.error().error().message();
        }
      }
      return problem;
    }
    String problem = ((ParsedPayload.Rejected) parsed).error().error().message();
    String text = new String(payload, StandardCharsets.UTF_8);
    if (text.strip().indexOf('\n') < 0) {
      malformedAnswer(text, problem).ifPresent(messages::add);
      return problem;
    }
    String lineProblem = null;
    for (String line : text.split("\r?\n")) {
      if (!line.isBlank()) {
        String wrong =
            read(JsonRpcCodec.parse(line), line.getBytes(StandardCharsets.UTF_8), messages);
        lineProblem = lineProblem != null ? lineProblem : wrong;
      }
    }
    return lineProblem;
  }

  /**
   * A payload that is not a valid JSON-RPC message but is shaped as a response (an id, a result or
   * an error, no method) answers the request it names: its caller gets a {@link BadAnswers} error
   * at once instead of waiting for its deadline. A malformed request or notification of the
   * server's is skipped: its id is in the server's own space, never one of ours.
   */
  private static Optional<JsonRpcResponse> malformedAnswer(String text, String problem) {
    JsonNode root;
    try {
      root = JsonRpcCodec.mapper().readTree(text);
    } catch (IOException e) {
      return Optional.empty();
    }
    if (root == null || !root.isObject() || root.has("method")) {
      return Optional.empty();
    }
    JsonNode id = root.get("id");
    boolean answers = root.has("result") || root.has("error");
    if (!answers || id == null || !(id.isIntegralNumber() || id.isTextual())) {
      return Optional.empty();
    }
    return Optional.of(BadAnswers.to(id, "a malformed response: " + problem));
  }

  private void skipped(String problem, byte[] payload) {
    String text =
        new String(payload, 0, Math.min(payload.length, PREVIEW_CHARS * 4), StandardCharsets.UTF_8);
    if (text.length() > PREVIEW_CHARS) {
      text = text.substring(0, PREVIEW_CHARS) + "…";
    }
    junkLog.warn("{}: skipped output that is not a JSON-RPC message ({}): {}", name, problem, text);
  }

  synchronized void message(JsonRpcMessage message, JsonNode relatedRequestId) {
    if (closed) {
      return;
    }
    try {
      listener.onMessage(message, relatedRequestId);
    } catch (RuntimeException e) {
      log.error("{}: the connection listener failed on a message", name, e);
    }
  }

  /** Reports the end, unless it was reported already. Returns whether this call reported it. */
  synchronized boolean close(ConnectionClosed.Kind kind, String detail) {
    if (closed) {
      return false;
    }
    closed = true;
    log.debug("{} closed: {} ({})", name, kind, detail);
    try {
      listener.onClosed(new ConnectionClosed(kind, detail));
    } catch (RuntimeException e) {
      log.error("{}: the connection listener failed on close", name, e);
    }
    closeReported.complete(null);
    return true;
  }

  /**
   * Fails {@code send} because the connection is gone, but only once the listener was told so: it
   * must learn of the loss before it sees the failure, or it would retry on this dead connection
   * (and lose its one retry). Bounded, for a write that failed while the connection is not (yet)
   * known to be gone.
   */
  void failAfterClose(CompletableFuture<Void> send, IOException failure) {
    closeReported
        .copy()
        .completeOnTimeout(null, CLOSE_REPORT_WAIT_MILLIS, TimeUnit.MILLISECONDS)
        .whenComplete((reported, notUsed) -> send.completeExceptionally(failure));
  }

  /** A send stage failed because the connection is gone (see {@link #failAfterClose}). */
  CompletableFuture<Void> failedAfterClose(IOException failure) {
    CompletableFuture<Void> send = new CompletableFuture<>();
    failAfterClose(send, failure);
    return send;
  }

  synchronized boolean isClosed() {
    return closed;
  }

  /** What a send answers once the connection is closing or closed. */
  CompletableFuture<Void> sendAfterClose() {
    return CompletableFuture.failedFuture(new IOException(name + ": the connection is closed"));
  }

  String name() {
    return name;
  }
}
