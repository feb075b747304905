package dev.mcpsupervisor.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AnswerCheckTest {

  private static final String JSON = "application/json";
  private static final String SSE = "text/event-stream";

  private static String result(long id, String text) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + id
        + ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""
        + text
        + "\"}]}}";
  }

  @Test
  void ownPayloadInAJsonAnswerIsOk() {
    assertEquals(Outcome.OK, AnswerCheck.check(200, JSON, result(3, "p-3"), 3, "p-3").outcome());
  }

  @Test
  void echoThatDecoratesThePayloadIsOk() {
    // server-everything's echo answers "Echo: <message>"
    assertEquals(
        Outcome.OK, AnswerCheck.check(200, JSON, result(3, "Echo: p-3"), 3, "p-3").outcome());
  }

  @Test
  void ownPayloadInAnSseAnswerAfterANotificationIsOk() {
    String body =
        "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
            + "\"params\":{\"level\":\"info\",\"data\":\"p-3\"}}\n\n"
            + "id: 7\ndata: "
            + result(3, "p-3")
            + "\n\n";
    assertEquals(
        Outcome.OK, AnswerCheck.check(200, SSE + "; charset=utf-8", body, 3, "p-3").outcome());
  }

  @Test
  void anotherSessionsPayloadWithTheSameIdIsWrong() {
    AnswerCheck.Verdict verdict = AnswerCheck.check(200, JSON, result(3, "s1-p-3"), 3, "s0-p-3");
    assertEquals(Outcome.WRONG, verdict.outcome());
    assertTrue(verdict.detail().contains("s1-p-3"), verdict.detail());
  }

  @Test
  void aResultForAnotherIdIsWrong() {
    assertEquals(Outcome.WRONG, AnswerCheck.check(200, JSON, result(4, "p-3"), 3, "p-3").outcome());
    assertEquals(
        Outcome.WRONG,
        AnswerCheck.check(200, SSE, "data: " + result(4, "p-4") + "\n\n", 3, "p-3").outcome());
  }

  @Test
  void errorsAndUnreadableAnswersFail() {
    String error =
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32603,\"message\":\"boom\"}}";
    assertEquals(Outcome.FAILED, AnswerCheck.check(200, JSON, error, 3, "p-3").outcome());
    assertEquals(Outcome.FAILED, AnswerCheck.check(500, JSON, "oops", 3, "p-3").outcome());
    assertEquals(Outcome.FAILED, AnswerCheck.check(200, JSON, "not json", 3, "p-3").outcome());
    assertEquals(Outcome.FAILED, AnswerCheck.check(200, SSE, ": ping\n\n", 3, "p-3").outcome());
    String toolError =
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"isError\":true,"
            + "\"content\":[{\"type\":\"text\",\"text\":\"bad p-3\"}]}}";
    assertEquals(Outcome.FAILED, AnswerCheck.check(200, JSON, toolError, 3, "p-3").outcome());
  }
}
