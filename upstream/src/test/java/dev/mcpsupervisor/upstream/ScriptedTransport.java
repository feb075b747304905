package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.fail;

import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A connection that records what is sent on it: the transport below an adapter under test, which
 * the test answers by calling the adapter's listener methods itself.
 */
final class ScriptedTransport implements UpstreamConnection {

  final LinkedBlockingQueue<JsonRpcMessage> sent = new LinkedBlockingQueue<>();
  final AtomicInteger closeCalls = new AtomicInteger();

  /** What each send answers; completed by default. */
  volatile CompletableFuture<Void> nextSendStage;

  @Override
  public CompletionStage<Void> send(JsonRpcMessage message) {
    sent.add(message);
    CompletableFuture<Void> stage = nextSendStage;
    return stage == null ? CompletableFuture.completedFuture(null) : stage;
  }

  @Override
  public CompletionStage<Void> close() {
    closeCalls.incrementAndGet();
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public OptionalLong pid() {
    return OptionalLong.of(42);
  }

  JsonRpcMessage next() {
    return next(RecordingListener.WAIT);
  }

  JsonRpcMessage next(Duration within) {
    try {
      JsonRpcMessage message = sent.poll(within.toMillis(), TimeUnit.MILLISECONDS);
      if (message == null) {
        return fail("nothing was sent within " + within);
      }
      return message;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail("interrupted");
    }
  }

  JsonRpcRequest nextRequest(String method) {
    JsonRpcMessage message = next();
    if (message instanceof JsonRpcRequest request && request.method().equals(method)) {
      return request;
    }
    return fail("expected a " + method + " request, got " + message);
  }

  JsonRpcNotification nextNotification(String method) {
    JsonRpcMessage message = next();
    if (message instanceof JsonRpcNotification notification
        && notification.method().equals(method)) {
      return notification;
    }
    return fail("expected a " + method + " notification, got " + message);
  }
}
