package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.delivery.ContextListener;
import dev.mcpsupervisor.fixture.ChildProcesses;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Confused deputy: a sampling request from the real fixture (a stdio child shared by several
 * clients) reaches only the client whose call caused it, or nobody.
 */
class SharedSessionServerRequestsTest {

  private static final String SERVER = "fixture";
  private static final Duration WITHIN = Duration.ofSeconds(30);

  @AfterAll
  static void noProcessOutlivesTheTests() {
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void anUntaggedSamplingRequestWithTwoClientsInFlightReachesNeitherAndIsRefusedUpstream() {
    try (SessionSupervisor supervisor =
        SessionSupervisor.start(RealFixture.config(RealFixture.stdio(SERVER, 0)))) {
      AskedListener asker = register(supervisor, "asker");
      AskedListener bystander = register(supervisor, "bystander");

      // only the asker has a call in flight: its untagged request is its own
      CompletionStage<JsonRpcResponse> first = sample(supervisor, "asker", "first", false, null);
      Asked asked = asker.next();
      assertEquals(McpMethods.SAMPLING_CREATE_MESSAGE, asked.request().method());

      // the bystander's call is in flight now too (and newer): nobody can tell whose the next is
      CompletionStage<JsonRpcResponse> sleeping =
          RealFixture.call(supervisor, "bystander", SERVER, FixtureTools.SLEEP, "ms", 60_000);
      RealFixture.await(
          RealFixture.call(supervisor, "bystander", SERVER, FixtureTools.ECHO, "message", "sent"),
          WITHIN); // the sleep went upstream before this answer came back
      JsonRpcResponse second =
          RealFixture.await(sample(supervisor, "asker", "second", false, null), WITHIN);

      String refusal = second.isError() ? second.error().message() : toolErrorText(second);
      assertTrue(
          refusal.contains("ambiguous server request: more than one client shares this session"),
          "the upstream was refused, and its tool said so: " + second);
      assertTrue(bystander.asked.isEmpty(), "the bystander never saw it: " + bystander.asked);
      assertTrue(asker.asked.isEmpty(), "nor did the asker: " + asker.asked);

      asked.answer().complete(sampled(asked.request(), "answer one"));
      assertEquals("answer one", RealFixture.text(RealFixture.await(first, WITHIN)));
      assertTrue(bystander.asked.isEmpty());
      assertTrue(!sleeping.toCompletableFuture().isDone(), "the bystander's call still runs");
    }
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void aTaggedSamplingRequestReachesExactlyItsCallerWhileAnotherClientIsInFlight() {
    try (SessionSupervisor supervisor =
        SessionSupervisor.start(RealFixture.config(RealFixture.stdio(SERVER, 1)))) {
      AskedListener asker = register(supervisor, "asker");
      AskedListener bystander = register(supervisor, "bystander");
      RealFixture.call(supervisor, "bystander", SERVER, FixtureTools.SLEEP, "ms", 60_000);
      RealFixture.await(
          RealFixture.call(supervisor, "bystander", SERVER, FixtureTools.ECHO, "message", "sent"),
          WITHIN);

      CompletionStage<JsonRpcResponse> sampled =
          sample(supervisor, "asker", "tagged", true, "asker-call");
      Asked asked = asker.next();
      assertEquals("asker-call", asked.tag(), "the request names the call it belongs to");
      asked.answer().complete(sampled(asked.request(), "for the asker"));
      assertEquals("for the asker", RealFixture.text(RealFixture.await(sampled, WITHIN)));
      assertTrue(bystander.asked.isEmpty(), "the bystander never saw it: " + bystander.asked);
    }
    ChildProcesses.assertNoneAlive();
  }

  @Test
  void hundredsOfRacingCallersEachGetOnlyTheirOwnTaggedRequests() throws Exception {
    int callers = 200;
    try (SessionSupervisor supervisor =
        SessionSupervisor.start(RealFixture.config(RealFixture.stdio(SERVER, 2)))) {
      List<AnsweringListener> listeners = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        AnsweringListener listener = new AnsweringListener("caller-" + i);
        supervisor.register(listener.name, listener);
        listeners.add(listener);
      }
      List<CompletableFuture<JsonRpcResponse>> answers = new ArrayList<>();
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService racers = Executors.newFixedThreadPool(8);
      try {
        for (AnsweringListener listener : listeners) {
          CompletableFuture<JsonRpcResponse> answer = new CompletableFuture<>();
          answers.add(answer);
          racers.execute(
              () -> {
                try {
                  start.await();
                  sample(supervisor, listener.name, listener.name, true, listener.name + "-call")
                      .whenComplete(
                          (response, failure) -> {
                            if (failure != null) {
                              answer.completeExceptionally(failure);
                            } else {
                              answer.complete(response);
                            }
                          });
                } catch (InterruptedException e) {
                  answer.completeExceptionally(e);
                }
              });
        }
        start.countDown();
        for (int i = 0; i < callers; i++) {
          AnsweringListener listener = listeners.get(i);
          assertEquals(
              "answered by " + listener.name,
              RealFixture.text(RealFixture.await(answers.get(i), WITHIN)),
              "each call got its own client's answer");
        }
      } finally {
        racers.shutdownNow();
      }
      for (AnsweringListener listener : listeners) {
        assertEquals(
            List.of(listener.name + "-call"),
            new ArrayList<>(listener.tags),
            "each client was asked once, for its own call");
      }
    }
    ChildProcesses.assertNoneAlive();
  }

  // --------------------------------------------------------------------------------------- helpers

  private static CompletionStage<JsonRpcResponse> sample(
      SessionSupervisor supervisor, String context, String prompt, boolean tied, String tag) {
    ObjectNode params = RealFixture.toolCall(FixtureTools.SAMPLE, "prompt", prompt);
    if (tied) {
      ((ObjectNode) params.get("arguments")).put("tied", true);
      params.putObject("_meta").put("progressToken", context + "-token");
    }
    return supervisor.request(context, SERVER, McpMethods.TOOLS_CALL, params, null, tag);
  }

  private static String toolErrorText(JsonRpcResponse response) {
    assertTrue(response.result().path("isError").asBoolean(), "a tool error: " + response);
    return response.result().path("content").path(0).path("text").asText();
  }

  private static JsonRpcResponse sampled(JsonRpcRequest request, String text) {
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.put("role", "assistant").put("model", "test").put("stopReason", "endTurn");
    result.putObject("content").put("type", "text").put("text", text);
    return JsonRpcResponse.success(request.id(), result);
  }

  private static AskedListener register(SessionSupervisor supervisor, String context) {
    AskedListener listener = new AskedListener();
    supervisor.register(context, listener);
    return listener;
  }

  record Asked(JsonRpcRequest request, String tag, CompletableFuture<JsonRpcResponse> answer) {}

  /** Keeps every server request it is asked, to answer later. */
  static final class AskedListener implements ContextListener {
    final LinkedBlockingQueue<Asked> asked = new LinkedBlockingQueue<>();

    @Override
    public void onNotification(String server, JsonRpcNotification notification) {}

    @Override
    public CompletionStage<JsonRpcResponse> onServerRequest(String server, JsonRpcRequest request) {
      throw new AssertionError("the tagged variant is called");
    }

    @Override
    public CompletionStage<JsonRpcResponse> onServerRequest(
        String server, JsonRpcRequest request, String relatedTag) {
      CompletableFuture<JsonRpcResponse> answer = new CompletableFuture<>();
      asked.add(new Asked(request, relatedTag, answer));
      return answer;
    }

    Asked next() {
      return TestSupervisor.poll(asked);
    }
  }

  /** Answers every sampling request at once with its own name, and keeps the tags it saw. */
  static final class AnsweringListener implements ContextListener {
    final String name;
    final LinkedBlockingQueue<String> tags = new LinkedBlockingQueue<>();

    AnsweringListener(String name) {
      this.name = name;
    }

    @Override
    public void onNotification(String server, JsonRpcNotification notification) {}

    @Override
    public CompletionStage<JsonRpcResponse> onServerRequest(String server, JsonRpcRequest request) {
      throw new AssertionError("the tagged variant is called");
    }

    @Override
    public CompletionStage<JsonRpcResponse> onServerRequest(
        String server, JsonRpcRequest request, String relatedTag) {
      tags.add(String.valueOf(relatedTag));
      return CompletableFuture.completedFuture(sampled(request, "answered by " + name));
    }
  }
}
