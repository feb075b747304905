package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/** Records what a connection reports, and lets a test wait for it. */
final class RecordingListener implements ConnectionListener {

  static final Duration WAIT = Duration.ofSeconds(20);

  record Received(JsonRpcMessage message, JsonNode relatedRequestId) {}

  private final LinkedBlockingQueue<Received> inbox = new LinkedBlockingQueue<>();

  /** Messages taken from the inbox while waiting for another one, in arrival order. */
  final List<Received> passedOver = new ArrayList<>();

  final CompletableFuture<ConnectionClosed> closed = new CompletableFuture<>();
  final AtomicInteger closeCount = new AtomicInteger();
  volatile long closedAtNanos;
  private final AtomicInteger concurrentCalls = new AtomicInteger();
  final AtomicInteger maxConcurrentCalls = new AtomicInteger();

  @Override
  public void onMessage(JsonRpcMessage message, JsonNode relatedRequestId) {
    enter();
    inbox.add(new Received(message, relatedRequestId));
    exit();
  }

  @Override
  public void onClosed(ConnectionClosed cause) {
    enter();
    closedAtNanos = System.nanoTime();
    closeCount.incrementAndGet();
    closed.complete(cause);
    exit();
  }

  private void enter() {
    maxConcurrentCalls.accumulateAndGet(concurrentCalls.incrementAndGet(), Math::max);
  }

  private void exit() {
    concurrentCalls.decrementAndGet();
  }

  /**
   * The first message matching {@code filter}; the others taken meanwhile go to {@link
   * #passedOver}.
   */
  Received await(Predicate<Received> filter) {
    return awaitWithin(filter, WAIT)
        .orElseGet(
            () -> fail("no matching message within " + WAIT + "; passed over: " + passedOver));
  }

  /** Like {@link #await} but empty when nothing matching arrives within {@code timeout}. */
  Optional<Received> awaitWithin(Predicate<Received> filter, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        Received next = inbox.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        if (next == null) {
          return Optional.empty();
        }
        if (filter.test(next)) {
          return Optional.of(next);
        }
        passedOver.add(next);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail("interrupted");
    }
  }

  JsonRpcResponse awaitResponse(JsonNode id) {
    return (JsonRpcResponse)
        await(
                received ->
                    received.message() instanceof JsonRpcResponse response
                        && Rpc.sameId(response.id(), id))
            .message();
  }

  /** The first server-to-client request of {@code method}. */
  JsonRpcRequest awaitRequest(String method) {
    return (JsonRpcRequest)
        await(
                received ->
                    received.message() instanceof JsonRpcRequest request
                        && request.method().equals(method))
            .message();
  }

  /** The first notification of {@code method}. */
  JsonRpcNotification awaitNotification(String method) {
    return (JsonRpcNotification)
        await(
                received ->
                    received.message() instanceof JsonRpcNotification notification
                        && notification.method().equals(method))
            .message();
  }

  ConnectionClosed awaitClosed() {
    try {
      return closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      return fail("the connection did not report its end within " + WAIT, e);
    }
  }

  void assertClosedOnceAs(ConnectionClosed.Kind kind) {
    assertEquals(kind, awaitClosed().kind());
    assertEquals(1, closeCount.get(), "onClosed calls");
  }
}
