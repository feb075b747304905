package dev.mcpsupervisor.app.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.app.bench.AnswerCheck;
import dev.mcpsupervisor.app.bench.Outcome;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

/** Names why a call failed, from its HTTP answer or its exception, as {@link CallRecord} says. */
final class FailureKinds {

  /** A kind and whether the gateway said the call may be sent again. */
  record Kind(String name, boolean retryable) {}

  private FailureKinds() {}

  /** The kind of an answered call: OK, or why not. */
  static Kind ofAnswer(int status, String contentType, String body, long id, String payload) {
    AnswerCheck.Verdict verdict = AnswerCheck.check(status, contentType, body, id, payload);
    if (verdict.outcome() == Outcome.OK) {
      return new Kind(CallRecord.OK, false);
    }
    if (verdict.outcome() == Outcome.WRONG) {
      return new Kind("wrong", false);
    }
    if (status != 200) {
      return new Kind("http_" + status, false);
    }
    try {
      List<JsonNode> responses = AnswerCheck.responses(contentType, body);
      for (JsonNode response : responses) {
        JsonNode error = response.path("error");
        if (response.path("id").asLong(-1) == id && error.isObject()) {
          JsonRpcError parsed =
              new JsonRpcError(error.path("code").asInt(), error.path("message").asText());
          return new Kind(
              SupervisorErrors.kind(parsed), error.path("data").path("retryable").asBoolean());
        }
      }
      return new Kind("tool_error", false);
    } catch (IOException | RuntimeException unreadable) {
      return new Kind("unreadable", false);
    }
  }

  /** The kind of a call that got no answer. */
  static Kind ofException(Throwable failure) {
    Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
    return cause instanceof HttpTimeoutException || cause instanceof TimeoutException
        ? new Kind("client_timeout", false)
        : new Kind("io", false);
  }
}
