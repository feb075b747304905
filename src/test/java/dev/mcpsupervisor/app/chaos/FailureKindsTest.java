package dev.mcpsupervisor.app.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.http.HttpTimeoutException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class FailureKindsTest {

  @Test
  void namesTheGatewaysErrorAndWhetherItIsRetryable() {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32001,\"message\":\"lost\","
            + "\"data\":{\"retryable\":true}}}";

    assertEquals(
        new FailureKinds.Kind("session_lost", true),
        FailureKinds.ofAnswer(200, "application/json", body, 3, "p"));
  }

  @Test
  void anOwnAnswerIsOkAndAnotherCallsIsWrong() {
    String ok = "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"text\":\"Echo: p\"}]}}";
    String other = "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"text\":\"q\"}]}}";

    assertEquals(CallRecord.OK, FailureKinds.ofAnswer(200, "application/json", ok, 3, "p").name());
    assertEquals("wrong", FailureKinds.ofAnswer(200, "application/json", other, 3, "p").name());
    assertEquals("http_503", FailureKinds.ofAnswer(503, "text/plain", "busy", 3, "p").name());
  }

  @Test
  void noAnswerInTimeIsAClientTimeout() {
    assertEquals(
        "client_timeout",
        FailureKinds.ofException(new CompletionException(new HttpTimeoutException("late"))).name());
    assertEquals("io", FailureKinds.ofException(new java.io.IOException("reset")).name());
  }
}
