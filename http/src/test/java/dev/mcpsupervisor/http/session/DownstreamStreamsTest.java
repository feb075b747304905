package dev.mcpsupervisor.http.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.http.endpoint.UpstreamCalls;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ProbeSink;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Where a downstream session's answers and server messages go; probes stand in for the HTTP
 * exchanges.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DownstreamStreamsTest {

  private final ActorTestKit testKit = ActorTestKit.create();
  private final DownstreamStreams streams = new DownstreamStreams();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  private static JsonRpcRequest request(String id) {
    return new JsonRpcRequest(TextNode.valueOf(id), "tools/call", JsonRpcCodec.emptyObject());
  }

  private static ObjectNode note(String text) {
    return JsonRpcCodec.emptyObject().put("note", text);
  }

  @Test
  void answersOfAPostAreSentTogetherOnceEveryRequestOnItIsAnswered() {
    TestProbe<Exchange.Event> post = testKit.createTestProbe();
    DownstreamStreams.OpenExchange exchange = streams.open(ProbeSink.of(post), true);
    DownstreamStreams.InFlight first =
        streams.track(exchange, request("a"), 1, new UpstreamCalls(null, "s", "1"), true);
    DownstreamStreams.InFlight second =
        streams.track(exchange, request("b"), 2, new UpstreamCalls(null, "s", "2"), true);

    streams.complete(
        first, JsonRpcResponse.success(TextNode.valueOf("a"), JsonRpcCodec.emptyObject()));
    post.expectNoMessage(Duration.ofMillis(50));
    streams.complete(
        second, JsonRpcResponse.success(TextNode.valueOf("b"), JsonRpcCodec.emptyObject()));
    Exchange.Complete complete = assertInstanceOf(Exchange.Complete.class, post.receiveMessage());
    assertEquals(2, complete.responses().size());
    assertTrue(streams.noExchangeOpen());
  }

  @Test
  void aMessageTaggedWithARequestTurnsItsPostIntoAStreamAndItsAnswerFollows() {
    TestProbe<Exchange.Event> post = testKit.createTestProbe();
    DownstreamStreams.OpenExchange exchange = streams.open(ProbeSink.of(post), true);
    DownstreamStreams.InFlight call =
        streams.track(exchange, request("c"), 7, new UpstreamCalls(null, "s", "7"), true);

    assertTrue(streams.sendOnTaggedExchange(note("progress"), "7"));
    assertEquals(
        "progress",
        assertInstanceOf(Exchange.Message.class, post.receiveMessage())
            .json()
            .path("note")
            .asText());
    streams.complete(
        call, JsonRpcResponse.success(TextNode.valueOf("c"), JsonRpcCodec.emptyObject()));
    assertEquals(
        "c",
        assertInstanceOf(Exchange.Message.class, post.receiveMessage()).json().path("id").asText());
    assertEquals(
        0, assertInstanceOf(Exchange.Complete.class, post.receiveMessage()).responses().size());
  }

  @Test
  void aPostWhoseClientTakesNoSseGetsNoServerMessages() {
    TestProbe<Exchange.Event> post = testKit.createTestProbe();
    DownstreamStreams.OpenExchange exchange = streams.open(ProbeSink.of(post), false);
    streams.track(exchange, request("d"), 3, new UpstreamCalls(null, "s", "3"), true);
    assertFalse(streams.sendOnTaggedExchange(note("log"), "3"));
    assertFalse(streams.sendUnrelated(note("list_changed"), "alpha"), "no GET stream either");
    post.expectNoMessage(Duration.ofMillis(50));
  }

  @Test
  void unrelatedMessagesGoOnTheOneGetStreamAndAClosedStreamIsForgotten() {
    TestProbe<Exchange.Event> get = testKit.createTestProbe();
    TestProbe<Exchange.Event> second = testKit.createTestProbe();
    assertTrue(streams.openGetStream(ProbeSink.of(get)));
    assertInstanceOf(Exchange.Opened.class, get.receiveMessage());
    assertFalse(streams.openGetStream(ProbeSink.of(second)), "one GET stream per session");

    assertTrue(streams.sendUnrelated(note("list_changed"), "alpha"));
    assertInstanceOf(Exchange.Message.class, get.receiveMessage());
    streams.closed(ProbeSink.of(get));
    assertFalse(streams.sendUnrelated(note("again"), "alpha"));
    get.expectNoMessage(Duration.ofMillis(50));
  }

  @Test
  void exchangesAndCallsWorkAlikeAfterEverythingWasEmptiedAgain() {
    DownstreamStreams fresh = new DownstreamStreams();
    assertTrue(fresh.noExchangeOpen());
    assertTrue(fresh.nothingInFlight());
    fresh.closed(ProbeSink.of(testKit.createTestProbe())); // nothing open: nothing to forget
    fresh.endAll(call -> null);
    for (int round = 0; round < 2; round++) {
      TestProbe<Exchange.Event> post = testKit.createTestProbe();
      DownstreamStreams.OpenExchange exchange = fresh.open(ProbeSink.of(post), true);
      DownstreamStreams.InFlight call =
          fresh.track(exchange, request("r" + round), 1, new UpstreamCalls(null, "s", "1"), true);
      assertTrue(fresh.isInFlight(TextNode.valueOf("r" + round)));
      assertFalse(fresh.noExchangeOpen());
      assertTrue(fresh.sendOnTaggedExchange(note("progress"), "1"));
      assertInstanceOf(Exchange.Message.class, post.receiveMessage());
      fresh.complete(
          call, JsonRpcResponse.success(TextNode.valueOf("r" + round), JsonRpcCodec.emptyObject()));
      assertInstanceOf(Exchange.Message.class, post.receiveMessage());
      assertInstanceOf(Exchange.Complete.class, post.receiveMessage());
      assertTrue(fresh.noExchangeOpen());
      assertTrue(fresh.nothingInFlight());
      assertFalse(fresh.isInFlight(TextNode.valueOf("r" + round)));

      TestProbe<Exchange.Event> refused = testKit.createTestProbe();
      DownstreamStreams.OpenExchange second = fresh.open(ProbeSink.of(refused), false);
      fresh.refuse(
          fresh.track(second, request("q"), 2, new UpstreamCalls(null, "s", "2"), true),
          JsonRpcResponse.failure(TextNode.valueOf("q"), -32600, "no"),
          429);
      assertEquals(
          429, assertInstanceOf(Exchange.Refused.class, refused.receiveMessage()).status());
      assertTrue(fresh.noExchangeOpen());
      assertTrue(fresh.nothingInFlight());
    }
    TestProbe<Exchange.Event> last = testKit.createTestProbe();
    fresh.track(
        fresh.open(ProbeSink.of(last), false),
        request("e"),
        3,
        new UpstreamCalls(null, "s", "3"),
        true);
    fresh.endAll(
        call -> JsonRpcResponse.failure(call.request.id(), -32800, "the downstream session ended"));
    assertEquals(
        1, assertInstanceOf(Exchange.Complete.class, last.receiveMessage()).responses().size());
    assertTrue(fresh.nothingInFlight());
    assertTrue(fresh.noExchangeOpen());
  }
}
