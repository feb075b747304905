package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.ParsedPayload;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
   * holds.
   */
  void payload(byte[] payload, JsonNode relatedRequestId, UnaryOperator<JsonRpcMessage> inspect) {
    ParsedPayload parsed = JsonRpcCodec.parse(payload);
    if (parsed instanceof ParsedPayload.Single single) {
      message(inspect.apply(single.message()), relatedRequestId);
    } else if (parsed instanceof ParsedPayload.Batch batch) {
      for (ParsedPayload.Element element : batch.elements()) {
        if (element.message() != null) {
          message(inspect.apply(element.message()), relatedRequestId);
        } else {
          skipped(element.error().error().message(), payload);
        }
      }
    } else if (parsed instanceof ParsedPayload.Rejected rejected) {
      skipped(rejected.error().error().message(), payload);
    }
  }

  void payload(byte[] payload, JsonNode relatedRequestId) {
    payload(payload, relatedRequestId, UnaryOperator.identity());
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
