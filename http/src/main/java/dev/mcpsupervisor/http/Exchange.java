package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.Asks;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;

/**
 * One HTTP exchange seen as a stream of events: the route materializes it and hands its {@link
 * #ref()} to the downstream session, which tells it what to send. The first event decides the HTTP
 * answer: {@link Complete} first means a plain JSON (or 202) answer, {@link Message}, {@link
 * Primed} or {@link Opened} first means an SSE stream that carries the rest, {@link Refused} means
 * an HTTP error. {@link Complete} and {@link Refused} end the stream.
 *
 * <p>Only an {@code ActorRef} crosses to the session, so the session could live on another node.
 */
final class Exchange {

  /** What a downstream session tells an exchange. */
  public interface Event {}

  /**
   * A JSON-RPC message to send on the stream (a notification, a server request, or a response once
   * streaming).
   */
  public record Message(ObjectNode json, String eventId) implements Event {

    /** A message without an SSE event id (the client does not resume streams). */
    public Message(ObjectNode json) {
      this(json, null);
    }
  }

  /**
   * The first event of a resumable SSE stream: its id and the reconnection delay, no message (the
   * client can resume from here with Last-Event-ID).
   */
  public record Primed(String eventId, long retryMillis) implements Event {}

  /**
   * The last event: the responses not yet sent (all of them unless the exchange already streams).
   */
  public record Complete(List<ObjectNode> responses) implements Event {
    public Complete {
      responses = List.copyOf(responses);
    }
  }

  /** The exchange cannot be served: answer with this HTTP status and JSON-RPC error body. */
  public record Refused(int status, ObjectNode error) implements Event {

    /** A refusal whose body is an Invalid Request error (no id) saying {@code message}. */
    static Refused of(int status, String message) {
      return new Refused(status, McpResponses.errorBody(INVALID_REQUEST, message));
    }
  }

  /** A GET stream was accepted: answer with an SSE stream at once. */
  public enum Opened implements Event {
    INSTANCE
  }

  /** The first event and a source of every later one (up to and including the terminal event). */
  record Head(Event first, Source<Event, NotUsed> rest) {}

  /** Events the stream actor holds before the buffer stage takes them (it always asks for more). */
  private static final int ACTOR_BUFFER = 256;

  private final ActorRef<Event> ref;
  private final CompletionStage<Head> head;
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();

  private Exchange(ActorRef<Event> ref, CompletionStage<Head> head) {
    this.ref = ref;
    this.head = head;
  }

  /**
   * Materializes the event stream. A slow client that lets more than {@code maxBufferBytes} of
   * events pile up has its stream ended with an error ({@code onOverflow} runs): no event is ever
   * dropped from a stream that goes on.
   */
  static Exchange open(Materializer materializer, long maxBufferBytes, Runnable onOverflow) {
    CompletableFuture<Void> terminated = new CompletableFuture<>();
    // one materialization, one stream actor: the ref feeds the stream that answers the head
    // directly
    Pair<
            org.apache.pekko.actor.ActorRef,
            CompletionStage<Pair<List<Event>, Source<Event, NotUsed>>>>
        materialized =
            // the buffer stage always pulls, so the actor's own buffer only bridges a moment
            Source.actorRef(
                    message -> Optional.empty(),
                    message -> Optional.empty(),
                    ACTOR_BUFFER,
                    OverflowStrategy.fail())
                .map(Event.class::cast)
                .via(new StreamBufferStage(maxBufferBytes))
                .takeWhile(event -> !isTerminal(event), true)
                .watchTermination(
                    (ref, done) -> {
                      Asks.sameThread(done)
                          .whenComplete(
                              (ok, failure) -> {
                                if (failure instanceof StreamBufferStage.Overflow) {
                                  onOverflow.run();
                                }
                                terminated.complete(null);
                              });
                      return ref;
                    })
                .prefixAndTail(1)
                .toMat(Sink.head(), Keep.both())
                .run(materializer);
    CompletionStage<Head> head =
        Asks.sameThread(materialized.second())
            .thenApply(
                pair ->
                    pair.first().isEmpty()
                        ? new Head(new Complete(List.of()), Source.empty())
                        : new Head(pair.first().get(0), pair.second()));
    Exchange exchange = new Exchange(Adapter.toTyped(materialized.first()), head);
    terminated.whenComplete((ok, failure) -> exchange.terminated.complete(null));
    return exchange;
  }

  private static boolean isTerminal(Event event) {
    return event instanceof Complete || event instanceof Refused;
  }

  ActorRef<Event> ref() {
    return ref;
  }

  CompletionStage<Head> head() {
    return head;
  }

  /** Completes when the stream is over: its terminal event was sent, or the client went away. */
  CompletionStage<Void> terminated() {
    return terminated;
  }
}
