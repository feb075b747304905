package dev.mcpsupervisor.http.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.http.access.McpRefusals;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.McpResponses;
import dev.mcpsupervisor.http.stream.SseFrames;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** How the head of an exchange becomes the HTTP answer; heads are built by hand. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExchangeResponsesTest {

  private static final AcceptHeader BOTH = new AcceptHeader(true, true);
  private static final AcceptHeader SSE_ONLY = new AcceptHeader(false, true);

  private final ActorTestKit testKit = ActorTestKit.create();
  private final Materializer materializer = Materializer.matFromSystem(testKit.system());
  private final ExchangeResponses responses =
      new ExchangeResponses(new McpRefusals(new GatewayMetrics()), Duration.ofSeconds(30));
  private final AtomicInteger streamed = new AtomicInteger();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  @BeforeEach
  void resetStreamed() {
    streamed.set(0); // one instance serves every test
  }

  private static ObjectNode answer(int id) {
    return JsonRpcCodec.emptyObject().put("jsonrpc", "2.0").put("id", id).set("result", null);
  }

  private static ObjectNode error(int id) {
    ObjectNode error = JsonRpcCodec.emptyObject().put("jsonrpc", "2.0").put("id", id);
    error.putObject("error").put("code", -32603).put("message", "failed");
    return error;
  }

  private static Exchange.Head complete(ObjectNode... answers) {
    return new Exchange.Head(new Exchange.Complete(List.of(answers)), Source.empty());
  }

  private HttpResponse post(Exchange.Head head, AcceptHeader accept, boolean batch, String id) {
    return responses.post(head, accept, batch, id, streamed::incrementAndGet);
  }

  private String body(HttpResponse response) throws Exception {
    return response
        .entity()
        .toStrict(3000, materializer)
        .toCompletableFuture()
        .get()
        .getData()
        .utf8String();
  }

  private static Optional<String> sessionId(HttpResponse response) {
    return response.getHeader(McpResponses.SESSION_ID_HEADER).map(header -> header.value());
  }

  private static boolean isEventStream(HttpResponse response) {
    return response.entity().getContentType().mediaType().equals(MediaTypes.TEXT_EVENT_STREAM);
  }

  @Test
  void aRefusalFromTheSessionIsAnsweredWithItsStatusAndBody() throws Exception {
    ObjectNode body = McpResponses.errorBody(-32600, "Conflict");
    Exchange.Head refused = new Exchange.Head(new Exchange.Refused(409, body), Source.empty());

    HttpResponse response = post(refused, BOTH, false, "s1");
    assertEquals(409, response.status().intValue());
    assertEquals(body, JsonRpcCodec.mapper().readTree(body(response)));
    assertEquals(Optional.empty(), sessionId(response));
    assertEquals(409, responses.get(refused, streamed::incrementAndGet).status().intValue());
    assertEquals(0, streamed.get(), "a refusal is no stream");
  }

  @Test
  void aPostWithNothingToAnswerGets202() {
    HttpResponse response = post(complete(), BOTH, false, null);
    assertEquals(202, response.status().intValue());
    assertEquals(0, streamed.get());
  }

  @Test
  void answersThatComeAloneAreJsonAndABatchGetsThemAsOneArray() throws Exception {
    HttpResponse single = post(complete(answer(1)), BOTH, false, null);
    assertEquals(200, single.status().intValue());
    assertFalse(isEventStream(single));
    assertEquals(answer(1), JsonRpcCodec.mapper().readTree(body(single)));

    HttpResponse batch = post(complete(answer(1), error(2)), BOTH, true, null);
    JsonNode array = JsonRpcCodec.mapper().readTree(body(batch));
    assertTrue(array.isArray());
    assertEquals(List.of(answer(1), error(2)), List.of(array.get(0), array.get(1)));
    assertEquals(0, streamed.get());
  }

  @Test
  void theNewSessionIdIsReturnedUnlessTheOnlyAnswerIsAnError() {
    assertEquals(Optional.of("s1"), sessionId(post(complete(answer(1)), BOTH, false, "s1")));
    assertEquals(Optional.empty(), sessionId(post(complete(error(1)), BOTH, false, "s1")));
    assertEquals(Optional.empty(), sessionId(post(complete(answer(1)), BOTH, false, null)));
  }

  @Test
  void aClientThatAcceptsOnlySseGetsAnswersThatComeAloneAsEvents() throws Exception {
    HttpResponse response = post(complete(answer(1), answer(2)), SSE_ONLY, true, "s1");
    assertEquals(200, response.status().intValue());
    assertTrue(isEventStream(response));
    assertEquals(Optional.of("s1"), sessionId(response));
    assertEquals(
        SseFrames.event(answer(1)).concat(SseFrames.event(answer(2))).utf8String(), body(response));
    assertEquals(0, streamed.get(), "the answers are all there: nothing more to watch");
  }

  @Test
  void aMessageBeforeTheAnswersMakesAStreamThatCarriesEverything() throws Exception {
    ObjectNode progress = JsonRpcCodec.emptyObject().put("method", "notifications/progress");
    Exchange.Head head =
        new Exchange.Head(
            new Exchange.Message(progress),
            Source.single(new Exchange.Complete(List.of(answer(1)))));

    HttpResponse response = post(head, BOTH, false, "s1");
    assertTrue(isEventStream(response));
    assertEquals(Optional.of("s1"), sessionId(response));
    assertEquals(1, streamed.get());
    assertEquals(
        SseFrames.event(progress).concat(SseFrames.event(answer(1))).utf8String(), body(response));
  }

  @Test
  void anOpenedGetStreamCarriesTheMessagesThatFollow() throws Exception {
    ObjectNode note = JsonRpcCodec.emptyObject().put("method", "notifications/message");
    Exchange.Head head =
        new Exchange.Head(Exchange.Opened.INSTANCE, Source.single(new Exchange.Message(note)));

    HttpResponse response = responses.get(head, streamed::incrementAndGet);
    assertEquals(200, response.status().intValue());
    assertTrue(isEventStream(response));
    assertEquals(1, streamed.get());
    assertEquals(SseFrames.event(note).utf8String(), body(response));
  }
}
