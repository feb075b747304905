package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.callTool;
import static dev.mcpsupervisor.http.TestGateway.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stopping gateway: readiness goes off first, new requests get 503 (never taken and then cut
 * off), in-flight calls finish.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DrainTest {

  private static final String PATH = "/servers/fixture/mcp";

  @Test
  void inFlightCallFinishesWhileNewRequestsAreRefusedAndReadinessIsOff() throws Exception {
    try (TestGateway gateway = TestGateway.start(TestGateway.stdioFixture("fixture"))) {
      assertEquals(200, gateway.get("/readyz").statusCode());
      String session = gateway.initialize(PATH);
      CompletableFuture<HttpResponse<String>> slow =
          gateway.postAsync(PATH, session, callTool(2, "sleep", "{\"ms\":3000}"));
      awaitInFlight(gateway);

      CompletionStage<Void> stopped = gateway.server.stop(Duration.ofSeconds(20));

      // before: the listener was unbound at once, so these failed to connect (or, on a pooled
      // connection, the call was taken and then cut off when the drain ended)
      HttpResponse<String> ready = gateway.get("/readyz");
      assertEquals(503, ready.statusCode());
      assertEquals("stopping", json(ready.body()).path("status").asText());
      HttpResponse<String> call =
          gateway.post(PATH, session, callTool(3, "echo", "{\"message\":\"m\"}"));
      assertEquals(503, call.statusCode(), call.body());
      assertEquals(
          "Service Unavailable: the gateway is shutting down",
          json(call.body()).path("error").path("message").asText());
      assertEquals(
          503,
          gateway.post(PATH, null, TestGateway.initializeBody("2025-11-25", "{}")).statusCode());
      assertFalse(slow.isDone(), "the drain has not waited for the slow call yet");

      HttpResponse<String> answer = slow.get(20, TimeUnit.SECONDS);
      assertEquals("slept 3000", TestGateway.text(TestGateway.answer(answer)));
      stopped.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  /** Until a call of {@code gateway} is in flight upstream. */
  static void awaitInFlight(TestGateway gateway) {
    TestProbe.create(gateway.supervisor.actorSystem())
        .awaitAssert(
            Duration.ofSeconds(10),
            () -> {
              int inFlight =
                  gateway.snapshot().keys().stream()
                      .mapToInt(key -> key.sessions().stream().mapToInt(s -> s.inFlight()).sum())
                      .sum();
              assertTrue(inFlight > 0, "the slow call is upstream");
              return null;
            });
  }
}
