package dev.mcpsupervisor.actors.session;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Acquirers waiting for a session to become ready: bounded (nothing grows with how many callers
 * wait), answered all at once when it is ready or fails.
 */
final class ReadyWaiters {

  private final int capacity;
  private final List<ActorRef<AcquireReply>> waiting = new ArrayList<>();

  ReadyWaiters(int capacity) {
    this.capacity = capacity;
  }

  /**
   * Answers at once if the session is ready ({@code initializeResult} not null); else waits, unless
   * {@code capacity} acquirers wait already: then it is answered the error {@code overloaded} makes
   * of that number.
   */
  void await(
      ActorRef<AcquireReply> replyTo,
      JsonNode initializeResult,
      IntFunction<JsonRpcError> overloaded) {
    if (initializeResult != null) {
      replyTo.tell(AcquireReply.ready(initializeResult));
    } else if (waiting.size() >= capacity) {
      replyTo.tell(AcquireReply.failed(overloaded.apply(waiting.size())));
    } else {
      waiting.add(replyTo);
    }
  }

  int size() {
    return waiting.size();
  }

  void ready(JsonNode initializeResult) {
    answerAll(AcquireReply.ready(initializeResult));
  }

  void failed(JsonRpcError error) {
    answerAll(AcquireReply.failed(error));
  }

  private void answerAll(AcquireReply reply) {
    waiting.forEach(waiter -> waiter.tell(reply));
    waiting.clear();
  }
}
