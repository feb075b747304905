package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A warm hand-over: a node that stops tells the node that adopts its sessions, which takes them
 * over and starts their upstream sessions before any of their requests reaches it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WarmHandOverTest {

  private static final String SECRET = "the-cluster-secret-of-the-hand-over";
  private static final String FIXTURE = "/servers/fixture/mcp";
  private static final Duration PHASE = Duration.ofSeconds(60);

  private final List<TestGateway> started = new ArrayList<>();

  @AfterEach
  void stop() {
    started.forEach(TestGateway::close);
  }

  @Test
  void theAdopterLeasesAStoppingNodesSessionsBeforeTheirFirstRequest() {
    List<TestGateway> nodes = TestGateway.twoFixtureNodes(SECRET, PHASE);
    started.addAll(nodes);
    TestGateway stopping = nodes.get(0);
    TestGateway adopter = nodes.get(1);

    List<String> ids = new ArrayList<>();
    for (int n = 0; n < 5; n++) {
      ids.add(stopping.initialize(FIXTURE));
    }
    assertEquals(Set.of(), leased(adopter), "nothing of them on the other node yet");

    stopping.close(Duration.ofSeconds(10));

    assertTrue(
        leased(adopter).containsAll(ids),
        "every session leases the fixture on its adopter before its first request there: "
            + leased(adopter));
    HttpResponse<String> answered =
        adopter.post(
            FIXTURE, ids.get(0), TestGateway.callTool(2, "echo", "{\"message\":\"warm\"}"));
    assertEquals(200, answered.statusCode(), answered.body());
    assertEquals("warm", TestGateway.text(TestGateway.answer(answered)));
  }

  /**
   * A call still in flight in the stopping node's own session at its drain deadline is answered on
   * its stream the retryable "send it again" (the session lives on at the adopter), never cut by
   * the connections' close.
   */
  @Test
  void aCallInFlightAtTheDrainDeadlineIsToldToSendItAgain() throws Exception {
    List<TestGateway> nodes = TestGateway.twoFixtureNodes(SECRET, PHASE);
    started.addAll(nodes);
    TestGateway stopping = nodes.get(0);
    TestGateway adopter = nodes.get(1);
    String id = stopping.initialize(FIXTURE);
    CompletableFuture<HttpResponse<String>> slow =
        stopping.postAsync(FIXTURE, id, TestGateway.callTool(5, "sleep", "{\"ms\":60000}"));
    DrainTest.awaitInFlight(stopping);

    stopping.close(Duration.ofSeconds(1));

    HttpResponse<String> answered = slow.get(30, TimeUnit.SECONDS);
    assertEquals(200, answered.statusCode(), answered.body());
    JsonNode error = TestGateway.answer(answered).path("error");
    assertEquals(-32001, error.path("code").asInt(), answered.body());
    assertTrue(error.path("data").path("retryable").asBoolean(), answered.body());
    HttpResponse<String> again =
        adopter.post(FIXTURE, id, TestGateway.callTool(6, "echo", "{\"message\":\"sent again\"}"));
    assertEquals("sent again", TestGateway.text(TestGateway.answer(again)), again.body());
  }

  /** The contexts that hold a lease on the node's fixture keys. */
  private static Set<String> leased(TestGateway node) {
    Set<String> contexts = new HashSet<>();
    for (SupervisorSnapshot.KeySnapshot key :
        TestGateway.await(node.supervisor.snapshot()).keys()) {
      contexts.addAll(key.leases().keySet());
    }
    return contexts;
  }
}
