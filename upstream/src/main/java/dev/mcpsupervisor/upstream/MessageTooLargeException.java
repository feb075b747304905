package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.io.IOException;

/**
 * The server sent more than its {@code maxMessageBytes} in one message (an HTTP body, a server-sent
 * event or one of its lines, a stdio line). Raised while reading, before anything past the limit is
 * buffered.
 */
final class MessageTooLargeException extends IOException {

  private final int limit;

  MessageTooLargeException(String what, int limit) {
    super(what + " larger than maxMessageBytes (" + limit + " bytes)");
    this.limit = limit;
  }

  /** Whether {@code failure} (behind any future's wrappers) is an over-limit message. */
  static boolean isCause(Throwable failure) {
    return failure != null && Failures.unwrap(failure) instanceof MessageTooLargeException;
  }

  /**
   * The answer that ends the call whose answer was too large: the session goes on, the call fails
   * with its own code and a message naming the limit.
   */
  JsonRpcResponse answer(JsonNode requestId) {
    return JsonRpcResponse.failure(
        requestId,
        JsonRpcErrorCodes.UPSTREAM_MESSAGE_TOO_LARGE,
        "upstream answer too large: " + getMessage());
  }

  /** The over-limit failure behind {@code failure}. */
  static MessageTooLargeException of(Throwable failure) {
    return (MessageTooLargeException) Failures.unwrap(failure);
  }

  int limit() {
    return limit;
  }
}
