package dev.mcpsupervisor.http.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.http.endpoint.Outcome;
import dev.mcpsupervisor.http.request.ClientRequests;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ProbeSink;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * How a session takes a POST's messages and turns outcomes into answers; probes stand in for the
 * exchange and the registry, and outcomes are awaited by hand instead of piped to an actor.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostHandlingTest {

  private static final int MAX_INFLIGHT = 3;

  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  /** One session's POST handling, its registry and the outcomes it awaits. */
  private final class Session {
    final TestProbe<DownstreamSessions.Command> registry = testKit.createTestProbe();
    final List<PostHandling.Awaited> awaited = new ArrayList<>();
    final PostHandling posts;
    final DownstreamStreams streams = new DownstreamStreams();
    final UpstreamRelay relay;

    Session() {
      NeverAnswers endpoint = new NeverAnswers();
      ClientRequests requests = new ClientRequests(endpoint);
      ClientNotifications notifications = new ClientNotifications("s1", endpoint, null, requests);
      relay = new UpstreamRelay(streams, notifications);
      posts =
          new PostHandling(
              "s1",
              null,
              registry.getRef(),
              requests,
              notifications,
              streams,
              relay,
              () -> MAX_INFLIGHT);
    }

    /** Takes a POST as the session does, keeping the outcomes it would await. */
    ClientRequests.Client take(DownstreamSession.Post post, ClientRequests.Client client) {
      PostHandling.Taken taken = posts.take(post, client);
      awaited.addAll(taken.awaited());
      return taken.client();
    }
  }

  private static JsonRpcRequest initialize(int id, String version) {
    ObjectNode params = JsonRpcCodec.emptyObject().put("protocolVersion", version);
    params.putObject("clientInfo").put("name", "test-client").put("version", "1.0");
    return new JsonRpcRequest(IntNode.valueOf(id), "initialize", params);
  }

  private static ClientRequests.Client client(String version) {
    return new ClientRequests.Client(version, JsonRpcCodec.emptyObject(), "c", "1", null);
  }

  private DownstreamSession.Post post(
      TestProbe<Exchange.Event> exchange, boolean batch, JsonRpcMessage... messages) {
    return new DownstreamSession.Post(
        List.of(messages), List.of(), batch, false, ProbeSink.of(exchange));
  }

  private static String errorMessage(ObjectNode answer) {
    return answer.path("error").path("message").asText();
  }

  @Test
  void aBatchIsRefusedWith400UnlessTheClientsProtocolAllowsBatches() {
    Session session = new Session();
    TestProbe<Exchange.Event> exchange = testKit.createTestProbe();

    assertTrue(
        session.posts.refusedBatch(post(exchange, true), client(ProtocolVersions.V2025_06_18)));
    assertEquals(400, exchange.expectMessageClass(Exchange.Refused.class).status());
    assertTrue(
        session.posts.refusedBatch(post(exchange, true), client(ProtocolVersions.V2025_11_25)));
    exchange.expectMessageClass(Exchange.Refused.class);

    assertFalse(
        session.posts.refusedBatch(post(exchange, true), client(ProtocolVersions.V2025_03_26)));
    assertFalse(
        session.posts.refusedBatch(post(exchange, true), client(ProtocolVersions.V2024_11_05)));
    assertFalse(
        session.posts.refusedBatch(post(exchange, false), client(ProtocolVersions.V2025_06_18)));
    exchange.expectNoMessage(Duration.ofMillis(50));
  }

  @Test
  void aBatchBeforeInitializeIsRefusedWith400NotACrash() {
    Session session = new Session();
    TestProbe<Exchange.Event> exchange = testKit.createTestProbe();

    assertTrue(session.posts.refusedBatch(post(exchange, true), null));
    assertEquals(400, exchange.expectMessageClass(Exchange.Refused.class).status());
  }

  @Test
  void initializeMakesTheClientKnownAndDescribesItToTheRegistry() {
    Session session = new Session();
    TestProbe<Exchange.Event> exchange = testKit.createTestProbe();

    ClientRequests.Client client =
        session.take(post(exchange, false, initialize(1, ProtocolVersions.V2025_06_18)), null);

    assertEquals(ProtocolVersions.V2025_06_18, client.protocolVersion());
    DownstreamSessions.Describe described =
        session.registry.expectMessageClass(DownstreamSessions.Describe.class);
    assertEquals(
        new DownstreamSessions.Describe("s1", ProtocolVersions.V2025_06_18, "test-client", "1.0"),
        described);
    assertEquals(1, session.awaited.size());
    exchange.expectNoMessage(Duration.ofMillis(50)); // answered once its outcome comes
  }

  @Test
  void anIdAlreadyInFlightAndASecondInitializeAreAnsweredWithErrors() {
    Session session = new Session();
    TestProbe<Exchange.Event> first = testKit.createTestProbe();
    ClientRequests.Client client =
        session.take(post(first, false, initialize(1, ProtocolVersions.V2025_06_18)), null);

    TestProbe<Exchange.Event> second = testKit.createTestProbe();
    ClientRequests.Client after =
        session.take(
            post(
                second,
                false,
                initialize(1, ProtocolVersions.V2025_06_18),
                initialize(2, ProtocolVersions.V2025_06_18)),
            client);

    assertSame(client, after);
    List<ObjectNode> answers = second.expectMessageClass(Exchange.Complete.class).responses();
    assertEquals(
        List.of(
            "Invalid Request: id 1 is already in flight",
            "Invalid Request: the session is already initialized"),
        answers.stream().map(PostHandlingTest::errorMessage).toList());
    assertEquals(1, session.awaited.size(), "neither was started");
  }

  @Test
  void anOutcomeBecomesTheAnswerOnlyForTheRequestInFlightUnderThatSequence() {
    Session session = new Session();
    TestProbe<Exchange.Event> exchange = testKit.createTestProbe();
    session.take(post(exchange, false, initialize(1, ProtocolVersions.V2025_06_18)), null);
    PostHandling.Awaited awaited = session.awaited.get(0);
    Outcome initialized = new Outcome.Initialized(JsonRpcCodec.emptyObject(), Map.of());

    assertFalse(
        session.posts.answered(
            null, awaited.requestId(), awaited.sequence() + 1, initialized, null),
        "an earlier request's outcome under the same id");
    exchange.expectNoMessage(Duration.ofMillis(50));

    assertTrue(
        session.posts.answered(null, awaited.requestId(), awaited.sequence(), initialized, null));
    ObjectNode answer = exchange.expectMessageClass(Exchange.Complete.class).responses().get(0);
    assertEquals(1, answer.path("id").asInt());
    assertTrue(answer.has("result"));
    assertFalse(
        session.posts.answered(null, awaited.requestId(), awaited.sequence(), initialized, null),
        "answered once");
    session.registry.expectMessageClass(DownstreamSessions.Describe.class);
    session.registry.expectNoMessage(Duration.ofMillis(50));
  }

  @Test
  void aFailedInitializeIsAnsweredAndTheSessionAsksToBeEnded() {
    Session session = new Session();
    TestProbe<Exchange.Event> exchange = testKit.createTestProbe();
    session.take(post(exchange, false, initialize(1, ProtocolVersions.V2025_06_18)), null);
    session.registry.expectMessageClass(DownstreamSessions.Describe.class);
    PostHandling.Awaited awaited = session.awaited.get(0);

    session.posts.answered(
        null,
        awaited.requestId(),
        awaited.sequence(),
        new Outcome.Failure(new JsonRpcError(-32002, "no server answered")),
        null);

    ObjectNode answer = exchange.expectMessageClass(Exchange.Complete.class).responses().get(0);
    assertEquals("no server answered", errorMessage(answer));
    DownstreamSessions.EndMe endMe =
        session.registry.expectMessageClass(DownstreamSessions.EndMe.class);
    assertEquals("initialize failed: no server answered", endMe.reason());
  }

  @Test
  void anOutcomeThatFailedIsAnsweredWithAnInternalError() {
    Session session = new Session();
    TestProbe<Exchange.Event> exchange = testKit.createTestProbe();
    session.take(post(exchange, false, initialize(1, ProtocolVersions.V2025_06_18)), null);
    PostHandling.Awaited awaited = session.awaited.get(0);

    session.posts.answered(
        null,
        awaited.requestId(),
        awaited.sequence(),
        null,
        new IllegalStateException("bug (expected)"));

    ObjectNode answer = exchange.expectMessageClass(Exchange.Complete.class).responses().get(0);
    assertEquals(JsonRpcErrorCodes.INTERNAL_ERROR, answer.path("error").path("code").asInt());
    assertNull(assertInstanceOf(ObjectNode.class, answer).get("result"));
  }

  // ------------------------------------------------------------------------------ in-flight limit

  private static JsonRpcRequest call(int id) {
    ObjectNode params = JsonRpcCodec.emptyObject().put("name", "slow");
    params.putObject("arguments");
    return new JsonRpcRequest(IntNode.valueOf(id), "tools/call", params);
  }

  /** Posts {@code count} calls from id {@code firstId}; answers the ids not taken in flight. */
  private List<Integer> postCalls(Session session, int firstId, int count) {
    TestProbe<Exchange.Event> exchange = testKit.createTestProbe();
    JsonRpcMessage[] calls = new JsonRpcMessage[count];
    for (int i = 0; i < count; i++) {
      calls[i] = call(firstId + i);
    }
    session.take(post(exchange, false, calls), client(ProtocolVersions.V2025_06_18));
    List<Integer> refused = new ArrayList<>();
    for (int id = firstId; id < firstId + count; id++) {
      if (!session.streams.isInFlight(IntNode.valueOf(id))) {
        refused.add(id);
      }
    }
    return refused;
  }

  private static PostHandling.Awaited awaitedFor(Session session, int id) {
    return session.awaited.stream()
        .filter(awaited -> awaited.requestId().asInt() == id)
        .reduce((first, last) -> last)
        .orElseThrow();
  }

  @Test
  void requestsPastTheInflightCapAreAnsweredOverloadedAndEveryEndFreesASlot() {
    Session session = new Session();
    ClientRequests.Client client = client(ProtocolVersions.V2025_06_18);
    assertEquals(List.of(4), postCalls(session, 1, 4));
    TestProbe<Exchange.Event> exchange = testKit.createTestProbe();
    session.take(post(exchange, false, call(5)), client);
    ObjectNode refused = exchange.expectMessageClass(Exchange.Complete.class).responses().get(0);
    assertEquals(5, refused.path("id").asInt());
    assertEquals(JsonRpcErrorCodes.OVERLOADED, refused.path("error").path("code").asInt());
    assertEquals(
        "overloaded: this session has 3 requests in flight (gateway.maxInflightPerDownstreamSession);"
            + " retry once one is answered",
        errorMessage(refused));

    // a result frees a slot
    PostHandling.Awaited first = awaitedFor(session, 1);
    session.posts.answered(
        client,
        first.requestId(),
        first.sequence(),
        new Outcome.Result(JsonRpcCodec.emptyObject()),
        null);
    assertEquals(List.of(11), postCalls(session, 10, 2));

    // so do an error (a timeout is one) and a failure
    PostHandling.Awaited second = awaitedFor(session, 2);
    session.posts.answered(
        client,
        second.requestId(),
        second.sequence(),
        new Outcome.Failure(new JsonRpcError(JsonRpcErrorCodes.REQUEST_TIMEOUT, "timed out")),
        null);
    PostHandling.Awaited third = awaitedFor(session, 3);
    session.posts.answered(
        client, third.requestId(), third.sequence(), null, new IllegalStateException("expected"));
    assertEquals(List.of(22), postCalls(session, 20, 3));

    // a cancelled call frees its slot when its (unsent) answer comes
    PostHandling.Awaited cancelled = awaitedFor(session, 10);
    session.streams.inFlight(cancelled.requestId()).cancelled = true;
    session.posts.answered(
        client,
        cancelled.requestId(),
        cancelled.sequence(),
        new Outcome.Result(JsonRpcCodec.emptyObject()),
        null);
    assertEquals(List.of(31), postCalls(session, 30, 2));

    // the session's end frees them all
    session.streams.endAll(
        call ->
            JsonRpcResponse.failure(call.request.id(), JsonRpcErrorCodes.REQUEST_CANCELLED, "end"));
    assertEquals(List.of(), postCalls(session, 40, 3));
  }

  @Test
  void theClientsAnswerToARelayedServerRequestEndsItsDeadline() {
    Session session = new Session();
    TestProbe<Exchange.Event> getStream = testKit.createTestProbe();
    assertTrue(session.streams.openGetStream(ProbeSink.of(getStream)));
    TestProbe<JsonRpcResponse> upstream = testKit.createTestProbe();
    ClientRequests.Client client =
        new ClientRequests.Client(
            ProtocolVersions.V2025_06_18,
            JsonRpcCodec.emptyObject().set("sampling", JsonRpcCodec.emptyObject()),
            "c",
            "1",
            null);
    JsonNode asked =
        session.relay.request(
            new DownstreamSession.UpstreamRequest(
                "fx",
                new JsonRpcRequest(
                    IntNode.valueOf(7), "sampling/createMessage", JsonRpcCodec.emptyObject()),
                null,
                upstream.getRef()),
            client);
    assertNotNull(asked, "relayed on the GET stream, under an id of the session's own");

    TestProbe<Exchange.Event> exchange = testKit.createTestProbe();
    PostHandling.Taken taken =
        session.posts.take(
            post(
                exchange,
                false,
                JsonRpcResponse.success(asked, JsonRpcCodec.emptyObject()),
                JsonRpcResponse.success(IntNode.valueOf(99), JsonRpcCodec.emptyObject())),
            client);
    assertEquals(List.of(asked), taken.answered(), "only the awaited answer ends a deadline");
    assertEquals(7, upstream.receiveMessage().id().asInt(), "back under the upstream's id");
  }
}
