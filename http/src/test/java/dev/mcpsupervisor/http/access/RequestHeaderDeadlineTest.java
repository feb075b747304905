package dev.mcpsupervisor.http.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.SourceQueueWithComplete;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** The deadline between requests never runs while a request is being served. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RequestHeaderDeadlineTest {

  private static final Duration DEADLINE = Duration.ofMillis(200);

  private final ActorSystem system = ActorSystem.create("RequestHeaderDeadlineTest");

  @AfterAll
  void stop() {
    system.terminate();
  }

  /**
   * A streamed answer's end reaches the stage through an async callback, which can come after the
   * client's next request (seen in SessionFailoverTest under load: a call that waited 20 s through
   * a node's loss was answered 500, its connection's handler ended by the deadline armed late).
   */
  @Test
  void aStreamedAnswerEndingAfterTheNextRequestArrivedDoesNotArmTheDeadlineUnderIt()
      throws Exception {
    CompletableFuture<ByteString> firstBody = new CompletableFuture<>();
    CompletableFuture<HttpResponse> secondAnswer = new CompletableFuture<>();
    Flow<HttpRequest, HttpResponse, NotUsed> handler =
        Flow.<HttpRequest>create()
            .mapAsync(
                1,
                request ->
                    request.getUri().path().equals("/first")
                        ? CompletableFuture.completedFuture(
                            HttpResponse.create()
                                .withEntity(
                                    HttpEntities.createChunked(
                                        ContentTypes.TEXT_PLAIN_UTF8,
                                        Source.completionStage(firstBody))))
                        : secondAnswer);
    Pair<SourceQueueWithComplete<HttpRequest>, SinkQueueWithCancel<HttpResponse>> connection =
        Source.<HttpRequest>queue(4, OverflowStrategy.backpressure())
            .via(RequestHeaderDeadline.around(handler, DEADLINE))
            .toMat(Sink.<HttpResponse>queue(), Keep.both())
            .run(system);
    SourceQueueWithComplete<HttpRequest> requests = connection.first();
    SinkQueueWithCancel<HttpResponse> responses = connection.second();

    requests.offer(HttpRequest.GET("/first"));
    HttpResponse first = next(responses).orElseThrow();
    CompletionStage<ByteString> firstRead =
        first
            .entity()
            .getDataBytes()
            .runWith(Sink.fold(ByteString.emptyByteString(), ByteString::concat), system);
    // the next request is in before the first answer's end is told
    requests.offer(HttpRequest.GET("/second"));
    firstBody.complete(ByteString.fromString("first"));
    assertEquals("first", firstRead.toCompletableFuture().get(10, TimeUnit.SECONDS).utf8String());

    // served for longer than the deadline: it must not end the connection under the request
    CompletableFuture<Optional<HttpResponse>> second = pull(responses);
    // not a wait for something: the time passing is what is tested
    Thread.sleep(DEADLINE.multipliedBy(5).toMillis());
    secondAnswer.complete(HttpResponse.create().withEntity("second"));
    Optional<HttpResponse> answered = second.get(10, TimeUnit.SECONDS);
    assertTrue(answered.isPresent(), "the second request is answered, not cut by the deadline");

    // and once it is answered, an idle connection still ends at the deadline
    assertTrue(next(responses).isEmpty(), "the idle connection ends");
  }

  private static Optional<HttpResponse> next(SinkQueueWithCancel<HttpResponse> responses)
      throws Exception {
    return pull(responses).get(10, TimeUnit.SECONDS);
  }

  private static CompletableFuture<Optional<HttpResponse>> pull(
      SinkQueueWithCancel<HttpResponse> responses) {
    return responses.pull().toCompletableFuture();
  }
}
