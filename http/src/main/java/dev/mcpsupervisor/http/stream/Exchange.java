package dev.mcpsupervisor.http.stream;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.Asks;
import dev.mcpsupervisor.protocol.CrossNode;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.javadsl.Source;

/**
 * One HTTP exchange seen as a sequence of events: the route opens it and hands it to the downstream
 * session, which tells it what to send. The first event decides the HTTP answer: {@link Complete}
 * first means a plain JSON (or 202) answer, {@link Message}, {@link Primed} or {@link Opened} first
 * means an SSE stream that carries the rest, {@link Refused} means an HTTP error. {@link Complete}
 * and {@link Refused} end the exchange.
 *
 * <p>A plain answer needs no stream: the first event completes {@link #head()} on the teller's
 * thread. Only a first event that opens a stream materializes one (an actor-fed source behind the
 * byte-bounded buffer), and every later event goes to it. Safe to tell from any thread.
 */
public final class Exchange implements ExchangeSink {

  /**
   * What a downstream session tells an exchange; a round held on another cluster node tells it from
   * there (so every event is plain data that crosses nodes).
   */
  public interface Event extends CrossNode {}

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
    public static Refused of(int status, String message) {
      return new Refused(status, McpResponses.errorBody(INVALID_REQUEST, message));
    }
  }

  /** A GET stream was accepted: answer with an SSE stream at once. */
  public enum Opened implements Event {
    INSTANCE
  }

  /** The first event and a source of every later one (up to and including the terminal event). */
  public record Head(Event first, Source<Event, NotUsed> rest) {}

  /** Events the stream actor holds before the buffer stage takes them (it always asks for more). */
  private static final int ACTOR_BUFFER = 256;

  private final Materializer materializer;
  private final long maxBufferBytes;
  private final Runnable onOverflow;
  private final CompletableFuture<Head> head = new CompletableFuture<>();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();

  /** Where later events go once the first opened a stream; null before. Guarded by this. */
  private ActorRef stream;

  /** Whether the terminal event was told: later ones are ignored. Guarded by this. */
  private boolean ended;

  /** Sees every event sent, before it goes out; set before the exchange is handed on. */
  private volatile Consumer<Event> observer;

  private Exchange(Materializer materializer, long maxBufferBytes, Runnable onOverflow) {
    this.materializer = materializer;
    this.maxBufferBytes = maxBufferBytes;
    this.onOverflow = onOverflow;
  }

  /**
   * A new exchange. Should it become a stream, a slow client that lets more than {@code
   * maxBufferBytes} of events pile up has its stream ended with an error ({@code onOverflow} runs):
   * no event is ever dropped from a stream that goes on.
   */
  public static Exchange open(Materializer materializer, long maxBufferBytes, Runnable onOverflow) {
    return new Exchange(materializer, maxBufferBytes, onOverflow);
  }

  /**
   * Lets {@code observer} see every event this exchange sends (on the teller's thread); set it
   * before the exchange is handed to whoever tells it.
   */
  public void observe(Consumer<Event> observer) {
    this.observer = observer;
  }

  @Override
  public void tell(Event event) {
    Head first = null;
    ActorRef target;
    synchronized (this) {
      if (ended) {
        return;
      }

      ended = isTerminal(event);
      target = stream;
      if (target == null) {
        // the first event: it answers the head; a stream only when more events follow
        if (ended) {
          first = new Head(event, Source.empty());
        } else {
          Pair<ActorRef, Source<Event, NotUsed>> rest = restOfStream().preMaterialize(materializer);
          stream = rest.first();
          first = new Head(event, rest.second());
        }
      }
    }
    Consumer<Event> seeing = observer;
    if (seeing != null) {
      seeing.accept(event);
    }
    // futures complete outside the lock: their callbacks build the HTTP answer
    if (first != null) {
      head.complete(first);
      if (isTerminal(first.first())) {
        terminated.complete(null);
      }
      return;
    }
    target.tell(event, ActorRef.noSender());
  }

  /**
   * Ends an exchange whose first event has not come: {@link #head()} fails with a timeout, and
   * whatever is told later is ignored. Does nothing once the first event came.
   */
  public void expire() {
    synchronized (this) {
      if (ended || stream != null) {
        return;
      }
      ended = true;
    }
    head.completeExceptionally(new TimeoutException("no first event"));
    terminated.complete(null);
  }

  /** The events after the first, up to and including the terminal one. */
  private Source<Event, ActorRef> restOfStream() {
    // the buffer stage always pulls, so the actor's own buffer only bridges a moment
    return Source.actorRef(
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
            });
  }

  private static boolean isTerminal(Event event) {
    return event instanceof Complete || event instanceof Refused;
  }

  public CompletionStage<Head> head() {
    return head;
  }

  /** Completes when the exchange is over: its terminal event was sent, or the client went away. */
  public CompletionStage<Void> terminated() {
    return terminated;
  }
}
