package dev.mcpsupervisor.http.session;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.http.endpoint.Outcome;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ExchangeSink;
import dev.mcpsupervisor.http.stream.StreamReplay;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One downstream MCP session (one {@code Mcp-Session-Id}), which is also the supervisor context
 * holding its leases. States, each a method: {@link #uninitialized()} → {@link #active} (the
 * client's protocol known) → {@link #draining} (the gateway stops: no GET stream, reply once every
 * exchange is answered) → {@link #ending} (leases released, then stop). A POST's messages are taken
 * by {@link PostHandling}; what a 2025-era client asks is answered by {@link ClientRequests}; where
 * answers and server messages go is {@link DownstreamStreams}; what the upstreams send goes where
 * {@link UpstreamTraffic} says.
 *
 * <p>Created by {@link DownstreamSessions}, which ends it or is asked to (idle, failed initialize);
 * only a session serving one stateless request ends itself once answered (its registry learns of it
 * when it stops). The HTTP routes tell it directly through its {@link RouteGate}: it stops only
 * once it has answered everything that passed the gate.
 */
public final class DownstreamSession {

  public interface Command {}

  /** A command from HTTP, routed by session id; its exchange carries the answer. */
  public interface Routed extends Command {
    ExchangeSink exchange();

    /** The answer when the session is gone. */
    default Exchange.Refused whenGone() {
      return Exchange.Refused.of(404, "Session not found");
    }
  }

  /**
   * A POST's messages.
   *
   * @param preAnswered errors for batch elements that were not valid messages, sent with the other
   *     answers
   * @param batch whether the body was a JSON array (only 2025-03-26 and older allow one)
   * @param acceptsSse whether the client accepts an SSE answer
   */
  public record Post(
      List<JsonRpcMessage> messages,
      List<JsonRpcResponse> preAnswered,
      boolean batch,
      boolean acceptsSse,
      ExchangeSink exchange)
      implements Routed {
    public Post {
      messages = List.copyOf(messages);
      preAnswered = List.copyOf(preAnswered);
    }
  }

  /**
   * A 2026-07-28 {@code subscriptions/listen} request: this session serves that one stream (its
   * leases hold its subscriptions, and are released when the stream ends).
   *
   * @param cacheScope what its cacheable results say
   */
  public record Listen(
      JsonRpcRequest request, StatelessEnvelope.Meta meta, String cacheScope, ExchangeSink exchange)
      implements Routed {}

  /** GET: the server-to-client stream. */
  public record OpenStream(ExchangeSink exchange) implements Routed {}

  /** GET with Last-Event-ID: the stream that event belongs to, from after it. */
  public record ResumeStream(String lastEventId, ExchangeSink exchange) implements Routed {}

  /** The HTTP side of a stream is gone (the client disconnected, or the stream ended). */
  public record ExchangeClosed(ExchangeSink exchange) implements Command {}

  /** Cancel what is in flight, close every stream, release every lease, then reply and stop. */
  public record End(String reason, ActorRef<DownstreamSessions.Reply> replyTo) implements Command {}

  /** Gateway stopping: close the GET stream, reply once no exchange is open any more. */
  public record Drain(ActorRef<DownstreamSessions.Command> replyTo) implements Command {}

  // From the supervisor, through SessionListener.

  /**
   * A notification from an upstream to this session's context (not a message: {@link
   * SessionListener} hands it over on the session's thread). {@code relatedTag}: the sequence
   * number of the request it belongs to (as a string), or null.
   */
  public record UpstreamNotification(
      String server, JsonRpcNotification notification, String relatedTag) {}

  public record UpstreamRequest(
      String server, JsonRpcRequest request, String relatedTag, ActorRef<JsonRpcResponse> replyTo)
      implements Command {}

  // Private.

  record Answered(JsonNode requestId, long sequence, Outcome outcome, Throwable failure)
      implements Command {}

  private record ServerRequestExpired(JsonNode downstreamId) implements Command {}

  /** A resumable stream's timer (priming, polling): {@link StreamReplay#timer}. */
  private record StreamTimer(ExchangeSink exchange) implements Command {}

  /** The servers a listen stream may reach are known (their initialize results). */
  private record ListenReady(ClientRequests.Client client, Outcome outcome, Throwable failure)
      implements Command {}

  /** A listen stream's resources are subscribed: URI → the server that took it. */
  private record ListenSubscribed(Map<String, String> uris) implements Command {}

  /** What the supervisor delivers the session's context ({@link SessionListener#mailbox()}). */
  private record FromContext(ContextDelivery.Command message) implements Command {}

  static final Command IDLE_CHECK = Signal.IDLE_CHECK; // sent by the registry's idle sweep

  /** What the idle sweep and the lease release say. */
  private enum Signal implements Command {
    IDLE_CHECK,
    LEASES_RELEASED
  }

  static Behavior<Command> create(SessionSpec spec) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers ->
                    new DownstreamSession(spec, context, timers)
                        .start(spec.settings().serverRequestTimeout())));
  }

  private final String id;
  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final SessionHandling handling;

  /**
   * The thread handing this session a call's answer from the supervisor, while it does: an outcome
   * that completes on it (the endpoint's futures run inline) is taken at once instead of going
   * through the mailbox a second time. Only that thread ever reads itself here.
   */
  private volatile Thread answering;

  /** An outcome that completed while {@link #answering}: taken right after the hand-off. */
  private Answered answeredInline;

  private DownstreamSession(
      SessionSpec spec, ActorContext<Command> context, TimerScheduler<Command> timers) {
    this.id = spec.id();
    this.context = context;
    this.timers = timers;
    this.handling =
        new SessionHandling(
            spec,
            new SessionHandling.Wiring(
                timers,
                (delay, exchange) ->
                    timers.startSingleTimer(
                        new StreamTimer(exchange), new StreamTimer(exchange), delay),
                ServerRequestExpired::new,
                this::awaitAnswer,
                () -> SessionLogger.of(context)));
  }

  private Behavior<Command> start(Duration serverRequestTimeout) {
    handling.start(
        new SessionListener(
            handling.upstreams,
            context.getSelf(),
            context.messageAdapter(ContextDelivery.Command.class, FromContext::new),
            context.getSystem().scheduler(),
            serverRequestTimeout));
    return uninitialized();
  }

  // ---------------------------------------------------------------------------------------- states

  /** Until its initialize request is taken: the one request that may come first. */
  private Behavior<Command> uninitialized() {
    return open(null, null);
  }

  /** The client's protocol is known (negotiated at initialize). */
  private Behavior<Command> active(ClientRequests.Client client) {
    return open(client, null);
  }

  /**
   * The gateway stops: the GET stream is closed and no new one opens; {@code waiter} hears once no
   * exchange is open (then null: drained, the session waits for its end).
   */
  private Behavior<Command> draining(
      ClientRequests.Client client, ActorRef<DownstreamSessions.Command> waiter) {
    if (waiter != null && handling.streams.noExchangeOpen()) {
      waiter.tell(new DownstreamSessions.Drained(id));
      return draining(client, null);
    }
    return open(client, new Draining(waiter));
  }

  private record Draining(ActorRef<DownstreamSessions.Command> waiter) {}

  /**
   * What every state before the end handles; {@code client} is null before initialize, {@code
   * draining} if so. One handler per state rather than a case per message: an idle session keeps
   * only this behaviour, and 100,000 idle sessions each holding a table of cases and their lambdas
   * would cost a kilobyte apiece.
   */
  private Behavior<Command> open(ClientRequests.Client client, Draining draining) {
    return Behaviors.receiveMessage(message -> onOpen(message, client, draining));
  }

  private Behavior<Command> onOpen(
      Command message, ClientRequests.Client client, Draining draining) {
    UpstreamTraffic upstreams = handling.upstreams;
    if (message instanceof Post post) {
      return onPost(post, client, draining);
    } else if (message instanceof Listen listen) {
      return onListen(listen, client);
    } else if (message instanceof ListenReady ready) {
      return onListenReady(ready);
    } else if (message instanceof ListenSubscribed subscribed) {
      handling.listen().subscribed(subscribed.uris());
    } else if (message instanceof OpenStream open) {
      handling.openStream(open, draining != null);
    } else if (message instanceof ResumeStream resume) {
      handling.resumeStream(resume, draining != null);
    } else if (message instanceof StreamTimer timer) {
      handling.streams.replay.timer(timer.exchange());
    } else if (message instanceof ExchangeClosed closed) {
      if (handling.exchangeClosed(closed.exchange())) {
        // a listen stream's session ends with it, with no round trip through its registry
        context.getSelf().tell(new End("its stream ended", context.getSystem().ignoreRef()));
      }
      return next(true, client, draining);
    } else if (message instanceof Answered answered) {
      return next(handling.answered(client, answered), client, draining);
    } else if (message instanceof FromContext from) {
      return fromContext(from.message(), client, draining);
    } else if (message instanceof UpstreamRequest upstream) {
      upstreams.request(upstream, client);
    } else if (message instanceof ServerRequestExpired expired) {
      upstreams.expired(expired.downstreamId());
    } else if (message == Signal.IDLE_CHECK) {
      handling.idleCheck();
    } else if (message instanceof End end) {
      return onEnd(end, client, draining);
    } else if (message instanceof Drain drain) {
      handling.drain();
      return draining(client, drain.replyTo());
    } else {
      return Behaviors.unhandled();
    }
    return Behaviors.same();
  }

  /**
   * A call's outcome: taken at once when it completes on the thread handing over the call's answer
   * ({@link #fromContext}), else piped to this actor.
   */
  private void awaitAnswer(CompletionStage<Outcome> outcome, JsonNode requestId, long sequence) {
    outcome.whenComplete(
        (result, failure) -> {
          Answered answered = new Answered(requestId, sequence, result, failure);
          if (Thread.currentThread() == answering && answeredInline == null) {
            answeredInline = answered;
          } else {
            context.getSelf().tell(answered);
          }
        });
  }

  /** What the supervisor delivers the context; a call's answer may complete a request at once. */
  private Behavior<Command> fromContext(
      ContextDelivery.Command message, ClientRequests.Client client, Draining draining) {
    answering = Thread.currentThread();
    try {
      handling.fromContext(message);
    } finally {
      answering = null;
    }
    Answered answered = answeredInline;
    if (answered == null) {
      return Behaviors.same();
    }
    answeredInline = null;
    return next(handling.answered(client, answered), client, draining);
  }

  /** After a message that may have closed the last exchange: a draining session may now reply. */
  private Behavior<Command> next(
      boolean exchangeMayHaveClosed, ClientRequests.Client client, Draining draining) {
    if (draining != null && draining.waiter() != null && exchangeMayHaveClosed) {
      return draining(client, draining.waiter());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onPost(Post post, ClientRequests.Client client, Draining draining) {
    handling.routedActivity();
    if (handling.posts.refusedBatch(post, client)) {
      return Behaviors.same();
    }
    ClientRequests.Client now = handling.take(post, client);
    if (now != client) {
      return draining != null ? draining(now, draining.waiter()) : active(now);
    }
    return next(true, client, draining);
  }

  /** First what an initialize would have told: which servers are there, and what they offer. */
  private Behavior<Command> onListen(Listen listen, ClientRequests.Client client) {
    ClientRequests.Client asking = handling.beginListen(listen, client);
    if (asking != null) {
      context.pipeToSelf(
          handling.discover(asking),
          (outcome, failure) -> new ListenReady(asking, outcome, failure));
    }
    return Behaviors.same();
  }

  private Behavior<Command> onListenReady(ListenReady ready) {
    CompletionStage<Map<String, String>> subscribing =
        handling.listenReady(ready.outcome(), ready.failure());
    if (subscribing != null) {
      context.pipeToSelf(
          subscribing, (uris, failure) -> new ListenSubscribed(uris == null ? Map.of() : uris));
    }
    return active(ready.client());
  }

  // ------------------------------------------------------------------------------------- lifecycle

  private Behavior<Command> onEnd(End end, ClientRequests.Client client, Draining draining) {
    if (draining != null && draining.waiter() != null) {
      draining.waiter().tell(new DownstreamSessions.Drained(id)); // nothing stays open once ended
    }
    handling.end(end.reason(), client);
    timers.cancelAll();
    context.pipeToSelf(handling.releaseLeases(), (done, failure) -> Signal.LEASES_RELEASED);
    return ending(new ArrayList<>(List.of(end.replyTo())));
  }

  /**
   * Waiting for the supervisor to release every lease; then replies to whoever asked for the end.
   * It stops once it also answered every routed message that passed its gate: none is lost.
   */
  private Behavior<Command> ending(List<ActorRef<DownstreamSessions.Reply>> waiters) {
    return afterEnd(Behaviors::same)
        .onMessage(End.class, end -> same(() -> waiters.add(end.replyTo())))
        .onMessageEquals(
            Signal.LEASES_RELEASED,
            () -> {
              waiters.forEach(waiter -> waiter.tell(DownstreamSessions.Reply.DONE));
              return released();
            })
        .onAnyMessage(ignored -> Behaviors.same())
        .build();
  }

  private Behavior<Command> released() {
    return handling.routedDrained()
        ? Behaviors.stopped()
        : afterEnd(this::released)
            .onMessage(
                End.class, end -> same(() -> end.replyTo().tell(DownstreamSessions.Reply.DONE)))
            .onAnyMessage(ignored -> Behaviors.same())
            .build();
  }

  /**
   * An ended session answers routed messages (then goes {@code next}), passes what its context
   * still delivers, refuses server requests.
   */
  private BehaviorBuilder<Command> afterEnd(Supplier<Behavior<Command>> next) {
    return Behaviors.receive(Command.class)
        .onMessage(FromContext.class, from -> same(() -> handling.fromEnded(from.message())))
        .onMessage(
            UpstreamRequest.class,
            upstream ->
                same(() -> ServerRequestBridge.refuse(upstream, "the downstream session ended")))
        .onMessage(Routed.class, routed -> then(() -> handling.refuseEnded(routed), next))
        .onMessage(ExchangeClosed.class, closed -> then(handling::routed, next))
        .onMessage(
            Drain.class,
            drain -> same(() -> drain.replyTo().tell(new DownstreamSessions.Drained(id))));
  }

  // --------------------------------------------------------------------------------------- helpers

  private static Behavior<Command> same(Runnable action) {
    return then(action, Behaviors::same);
  }

  private static Behavior<Command> then(Runnable action, Supplier<Behavior<Command>> next) {
    action.run();
    return next.get();
  }
}
