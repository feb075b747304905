package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.protocol.jsonrpc.ParsedPayload;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;

/** What the HTTP connections make alike of the answer to one POST. */
final class HttpAnswers {

  private HttpAnswers() {}

  /**
   * Delivers the JSON-RPC response a 4xx/5xx body holds, as the answer to request {@code requestId}
   * (under that id when the server could not name it: it answers id null when it rejected the POST
   * as a whole). Returns whether the body held one.
   */
  static boolean deliverErrorAnswer(ConnectionEvents events, byte[] body, JsonNode requestId) {
    if (body.length == 0) {
      return false;
    }
    ParsedPayload parsed = JsonRpcCodec.parse(body);
    if (parsed instanceof ParsedPayload.Single single
        && single.message() instanceof JsonRpcResponse answer) {
      events.message(answer.id().isNull() ? answer.withId(requestId) : answer, requestId);
      return true;
    }
    return false;
  }

  /**
   * Whether a failed POST concerns its own call only, not the connection: its answer was over
   * maxMessageBytes, or its headers did not come within httpTimeout.
   */
  static boolean failsTheCallOnly(Throwable failure) {
    Throwable cause = Failures.unwrap(failure);
    return cause instanceof MessageTooLargeException
        || (cause instanceof HttpTimeoutException
            && !(cause instanceof HttpConnectTimeoutException));
  }

  /**
   * When {@code failure} is an over-limit answer to request {@code requestId}: answers that request
   * with the error that names the limit, and returns true (the call is over, the session goes on).
   */
  static boolean answeredTooLarge(ConnectionEvents events, JsonNode requestId, Throwable failure) {
    if (requestId == null || !MessageTooLargeException.isCause(failure)) {
      return false;
    }
    events.message(MessageTooLargeException.of(failure).answer(requestId), requestId);
    return true;
  }
}
