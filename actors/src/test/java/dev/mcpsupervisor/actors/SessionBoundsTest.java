package dev.mcpsupervisor.actors;

import static dev.mcpsupervisor.actors.ServerKeyActorTest.callParams;
import static dev.mcpsupervisor.actors.TestSupervisor.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.actors.FakeConnector.FakeConnection;
import dev.mcpsupervisor.actors.SessionActorTest.RecordingListener;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * Nothing a session holds grows without bound, whatever its callers or its upstream do; overflow is
 * said at once.
 */
class SessionBoundsTest {

  private static final String SMALL_STASH = "mcp-supervisor.supervisor.stashCapacity = 3";

  @Test
  void acquiresWaitingForReadinessAreBoundedByTheStashCapacity() {
    try (TestSupervisor test = TestSupervisor.start(SMALL_STASH, TestSupervisor.shared("alpha"))) {
      test.connector.holdInitialize = true;
      List<CompletionStage<?>> waiting = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        waiting.add(test.supervisor.acquire("run-" + i, "alpha"));
      }
      Throwable overflow = TestSupervisor.awaitFailure(test.supervisor.acquire("run-3", "alpha"));
      assertTrue(overflow instanceof SupervisorException, "got " + overflow);
      assertEquals(JsonRpcErrorCodes.OVERLOADED, ((SupervisorException) overflow).error().code());
      waiting.forEach(
          acquire ->
              assertFalse(acquire.toCompletableFuture().isDone(), "the first three still wait"));

      FakeConnection connection = test.connector.nextConnection();
      JsonRpcRequest initialize = connection.nextRequest();
      connection.respond(initialize.id(), FakeConnector.initializeResult());
      waiting.forEach(TestSupervisor::await);
    }
  }

  @Test
  void callsWaitingForAStillInitializingRetryCountAgainstTheStash() {
    try (TestSupervisor test = TestSupervisor.start(SMALL_STASH, TestSupervisor.shared("alpha"))) {
      await(test.supervisor.acquire("run", "alpha"));
      FakeConnection connection = test.connector.nextConnection();
      List<CompletionStage<JsonRpcResponse>> held = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        held.add(
            test.supervisor.request(
                "run", "alpha", McpMethods.TOOLS_CALL, callParams("echo"), null));
        JsonRpcRequest sent = connection.nextRequest();
        connection.push(JsonRpcResponse.failure(sent.id(), -32002, "Server not initialized"));
      }
      test.awaitAssert(() -> assertEquals(0, test.onlySession().inFlight()));

      JsonRpcResponse overflow =
          await(
              test.supervisor.request(
                  "run", "alpha", McpMethods.TOOLS_CALL, callParams("echo"), null));
      assertEquals(
          JsonRpcErrorCodes.OVERLOADED,
          overflow.error().code(),
          "three calls wait for a retry already");
      test.onlySession(); // barrier
      assertTrue(connection.nothingSent(), "the overflowing call never reached the upstream");

      test.timePasses(Duration.ofMillis(50)); // the retries go out and are answered
      for (int i = 0; i < 3; i++) {
        JsonRpcRequest retry = connection.nextRequest();
        connection.respond(retry.id(), FakeConnector.text("ok"));
      }
      held.forEach(
          answer ->
              assertEquals(
                  "ok", await(answer).result().path("content").get(0).path("text").asText()));
    }
  }

  @Test
  void serverRequestsBeyondTheCapacityAreRefusedUpstreamAtOnce() {
    try (TestSupervisor test = TestSupervisor.start(SMALL_STASH, TestSupervisor.shared("alpha"))) {
      RecordingListener listener = new RecordingListener(); // never answers
      test.supervisor.register("run", listener);
      test.supervisor.request("run", "alpha", McpMethods.TOOLS_CALL, callParams("slow"), null);
      FakeConnection connection = test.connector.nextConnection();
      JsonRpcRequest call = connection.nextRequest();
      for (int i = 0; i < 3; i++) {
        connection.push(
            new JsonRpcRequest(
                TextNode.valueOf("up-" + i),
                McpMethods.SAMPLING_CREATE_MESSAGE,
                JsonRpcCodec.emptyObject()),
            call.id());
        listener.nextServerRequest();
      }
      connection.push(
          new JsonRpcRequest(
              TextNode.valueOf("up-3"),
              McpMethods.SAMPLING_CREATE_MESSAGE,
              JsonRpcCodec.emptyObject()),
          call.id());
      JsonRpcResponse refused = (JsonRpcResponse) connection.nextSent();
      assertEquals(TextNode.valueOf("up-3"), refused.id());
      assertEquals(JsonRpcErrorCodes.NO_CLIENT_FOR_SERVER_REQUEST, refused.error().code());
      assertTrue(
          refused.error().message().contains("3 server requests are waiting"),
          refused.error().message());
      assertTrue(listener.serverRequests.isEmpty(), "the fourth was not handed to the context");
    }
  }
}
