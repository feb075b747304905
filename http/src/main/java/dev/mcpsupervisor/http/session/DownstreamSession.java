package dev.mcpsupervisor.http.session;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.REQUEST_CANCELLED;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.UPSTREAM_SESSION_LOST;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.endpoint.Outcome;
import dev.mcpsupervisor.http.endpoint.UpstreamCalls;
import dev.mcpsupervisor.http.request.ClientRequests;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ExchangeSink;
import dev.mcpsupervisor.http.stream.StreamResumption;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One downstream MCP session (one {@code Mcp-Session-Id}), which is also the supervisor context
 * holding its leases. States, each a method (docs/architecture.md draws them): {@link
 * #uninitialized()} → {@link #active} (the client's protocol known) → {@link #draining} (the
 * gateway stops: no GET stream, reply once every exchange is answered) → {@link #drained}; ended
 * from any of them, it is an {@link EndedSession}. A POST's messages are taken by {@link
 * PostHandling}; what a 2025-era client asks is answered by {@link ClientRequests}; where answers
 * and server messages go is {@link DownstreamStreams}; what the upstreams send goes where {@link
 * UpstreamRelay} says.
 *
 * <p>Created by {@link DownstreamSessions}, which ends it or is asked to (idle, failed initialize).
 * The HTTP routes tell it directly through its {@link RouteGate}: it stops only once it has
 * answered everything that passed the gate. Its messages are also those of a {@link ListenSession},
 * which its registry keeps beside it.
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
   * @param callerToken the bearer token the session's owner presented with this POST, when a server
   *     of the session passes it upstream ({@code passCallerToken}); else null (also for a POST
   *     forwarded from another node: the token does not travel, the session keeps the one it was
   *     last given here). Never logged.
   */
  public record Post(
      List<JsonRpcMessage> messages,
      List<JsonRpcResponse> preAnswered,
      boolean batch,
      boolean acceptsSse,
      ExchangeSink exchange,
      String callerToken)
      implements Routed {
    public Post {
      messages = List.copyOf(messages);
      preAnswered = List.copyOf(preAnswered);
    }

    /** Without a caller's token. */
    public Post(
        List<JsonRpcMessage> messages,
        List<JsonRpcResponse> preAnswered,
        boolean batch,
        boolean acceptsSse,
        ExchangeSink exchange) {
      this(messages, preAnswered, batch, acceptsSse, exchange, null);
    }

    @Override
    public String toString() { // never the token
      return "Post[messages=" + messages + ", batch=" + batch + ", acceptsSse=" + acceptsSse + "]";
    }
  }

  /** GET: the server-to-client stream. */
  public record OpenStream(ExchangeSink exchange) implements Routed {}

  /** GET with Last-Event-ID: the stream that event belongs to, from after it. */
  public record ResumeStream(String lastEventId, ExchangeSink exchange) implements Routed {}

  /** The HTTP side of a stream is gone (the client disconnected, or the stream ended). */
  public record ExchangeClosed(ExchangeSink exchange) implements Command {}

  /**
   * Cancel what is in flight, close every stream, release every lease, then reply and stop.
   *
   * @param handedOver whether the session lives on in the cluster (this node stops, another adopts
   *     it): its record stays; otherwise it ended for good and its record goes
   */
  public record End(String reason, boolean handedOver, ActorRef<DownstreamSessions.Reply> replyTo)
      implements Command {
    public End(String reason, ActorRef<DownstreamSessions.Reply> replyTo) {
      this(reason, false, replyTo);
    }
  }

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

  /** A resumable stream's timer (priming, polling): {@link StreamResumption#timer}. */
  private record StreamTimer(ExchangeSink exchange) implements Command {}

  /** What the supervisor delivers the session's context (the actor is its delivery). */
  record FromContext(ContextDelivery.Command message) implements Command {}

  static final Command IDLE_CHECK = Signal.IDLE_CHECK; // sent by the registry's idle sweep

  /** What the idle sweep says. */
  private enum Signal implements Command {
    IDLE_CHECK
  }

  private static final Logger log = LoggerFactory.getLogger(DownstreamSession.class);

  /**
   * Why a session the client deleted ends. Logged at DEBUG: it is the client's own doing, answered
   * 200, and at INFO a gateway serving many short sessions writes a line for each (every other end
   * is the gateway's decision, at INFO).
   */
  static final String DELETED_BY_CLIENT = "deleted by the client";

  static Behavior<Command> create(SessionSpec spec) {
    return adopt(spec, null);
  }

  /**
   * A session another cluster node served, from its {@code record}: it serves on with no new
   * initialize (null: a new session).
   */
  static Behavior<Command> adopt(SessionSpec spec, SessionRecord record) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers -> new DownstreamSession(spec, context, timers).start(record)));
  }

  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final SessionSpec spec;
  private final ClientRequests requests;
  private final DownstreamStreams streams = new DownstreamStreams();
  private final UpstreamRelay relay;
  private final PostHandling posts;

  /**
   * The thread handing this session a call's answer from the supervisor, while it does: an outcome
   * that completes on it (the endpoint's futures run inline) is taken at once instead of going
   * through the mailbox a second time. Only that thread ever reads itself here.
   */
  private volatile Thread answering;

  /** An outcome that completed while {@link #answering}: taken right after the hand-off. */
  private Answered answeredInline;

  private SessionListener listener;

  /** The record last published to the cluster's replicas (null on a single node, or before). */
  private SessionRecord replicated;

  private DownstreamSession(
      SessionSpec spec, ActorContext<Command> context, TimerScheduler<Command> timers) {
    this.context = context;
    this.timers = timers;
    this.spec = spec;
    this.requests = new ClientRequests(spec.endpoint());
    ClientNotifications notifications =
        new ClientNotifications(spec.id(), spec.endpoint(), spec.supervisor(), requests);
    this.relay = new UpstreamRelay(streams, notifications);
    this.posts =
        new PostHandling(
            spec.id(),
            spec.supervisor(),
            spec.registry(),
            requests,
            notifications,
            streams,
            relay,
            spec.maxInflight());
  }

  /** The session hears what its upstreams send from now on. */
  private Behavior<Command> start(SessionRecord adopted) {
    listener =
        new SessionListener(
            relay,
            context.getSelf(),
            context.messageAdapter(ContextDelivery.Command.class, FromContext::new),
            context.getSystem().scheduler(),
            spec.settings().serverRequestTimeout());
    spec.supervisor().register(spec.id(), listener);
    if (adopted == null) {
      return uninitialized();
    }
    requests.restore(
        adopted.upstreams(),
        adopted.logLevel(),
        adopted.subscriptions(),
        new UpstreamCalls(spec.supervisor(), spec.id(), ADOPTION_TAG));
    clientKnown(adopted.client());
    replicate(adopted.client());
    return active(adopted.client());
  }

  /**
   * A request in flight when this node stopped and its session went on at another node: the node's
   * drain deadline passed before it was answered.
   */
  private static final JsonRpcError NODE_STOPPED =
      new JsonRpcError(
          UPSTREAM_SESSION_LOST,
          "the gateway node that served this request stopped before answering it, and the request"
              + " with it: send it again (the session goes on)",
          JsonRpcCodec.emptyObject().put("retryable", true));

  /** What an adopted session's own upstream calls relate to: no request of its client. */
  private static final String ADOPTION_TAG = "adopted";

  // ---------------------------------------------------------------------------------------- states
  // One handler per state, not a case table: an idle session keeps only its state's one lambda, and
  // 100,000 idle sessions each holding a table of cases would cost a kilobyte apiece.

  /** Until its initialize request is taken. */
  private Behavior<Command> uninitialized() {
    return Behaviors.receiveMessage(
        message -> message instanceof Post post ? onPost(post, null) : onOpen(message, null));
  }

  /** The client's protocol is known (negotiated at initialize). */
  private Behavior<Command> active(ClientRequests.Client client) {
    return Behaviors.receiveMessage(
        message -> message instanceof Post post ? onPost(post, client) : onOpen(message, client));
  }

  /**
   * The gateway stops: the GET stream is closed and no new one opens; {@code waiter} hears once no
   * exchange is open.
   */
  private Behavior<Command> draining(
      ClientRequests.Client client, ActorRef<DownstreamSessions.Command> waiter) {
    if (streams.noExchangeOpen()) {
      waiter.tell(new DownstreamSessions.Drained(spec.id()));
      return drained(client);
    }
    return Behaviors.receiveMessage(
        message -> {
          if (message instanceof Post post) {
            return draining(posts(post, client), waiter);
          }
          Behavior<Command> next = whileDraining(message, client);
          return next == Behaviors.<Command>same() ? draining(client, waiter) : next;
        });
  }

  /** Drained: nothing is open, the session waits for its end. */
  private Behavior<Command> drained(ClientRequests.Client client) {
    return Behaviors.receiveMessage(
        message ->
            message instanceof Post post
                ? drained(posts(post, client))
                : whileDraining(message, client));
  }

  private Behavior<Command> whileDraining(Command message, ClientRequests.Client client) {
    if (message instanceof OpenStream || message instanceof ResumeStream) {
      spec.gate().processed();
      ((Routed) message).exchange().tell(Exchange.Refused.of(503, "the gateway is shutting down"));
    } else if (message instanceof Drain drain) {
      drain.replyTo().tell(new DownstreamSessions.Drained(spec.id()));
    } else {
      return onOpen(message, client);
    }
    return Behaviors.same();
  }

  /** What every state before the end handles alike; {@code client} is null before initialize. */
  private Behavior<Command> onOpen(Command message, ClientRequests.Client client) {
    if (message instanceof FromContext from) {
      fromContext(from.message(), client);
    } else if (message instanceof Answered answered) {
      answered(answered, client);
    } else if (message instanceof ExchangeClosed closed) {
      spec.gate().processed();
      streams.closed(closed.exchange());
    } else if (message instanceof StreamTimer timer) {
      streams.replay.timer(timer.exchange());
    } else if (message instanceof UpstreamRequest upstream) {
      JsonNode asked = relay.request(upstream, client);
      if (asked != null) {
        Duration timeout = spec.settings().serverRequestTimeout();
        timers.startSingleTimer(asked, new ServerRequestExpired(asked), timeout);
      }
    } else if (message instanceof ServerRequestExpired expired) {
      relay.expired(expired.downstreamId());
    } else if (message instanceof OpenStream open) {
      spec.gate().processedActivity();
      if (!streams.openGetStream(open.exchange())) {
        open.exchange()
            .tell(
                Exchange.Refused.of(409, "Conflict: this session already has an open GET stream"));
      }
    } else if (message instanceof ResumeStream resume) {
      spec.gate().processedActivity();
      streams.resume(resume.lastEventId(), resume.exchange());
    } else if (message instanceof ListenSession.Listen listen) { // a fault of the routes
      spec.gate().processed();
      listen.exchange().tell(Exchange.Refused.of(409, "Conflict: the session is in use"));
    } else if (message == Signal.IDLE_CHECK) {
      askToEndIfIdle();
    } else if (message instanceof Drain drain) {
      streams.closeGetStream();
      return draining(client, drain.replyTo());
    } else if (message instanceof End end) {
      return onEnd(end);
    } else {
      return Behaviors.unhandled();
    }
    return Behaviors.same();
  }

  private Behavior<Command> onPost(Post post, ClientRequests.Client client) {
    ClientRequests.Client now = posts(post, client);
    return now == client ? Behaviors.same() : active(now);
  }

  /** Takes a POST's messages; the client as it is now (a new one once initialize is taken). */
  private ClientRequests.Client posts(Post post, ClientRequests.Client client) {
    spec.gate().processedActivity();
    if (post.callerToken() != null && !spec.owner().isAnonymous()) {
      // told before this POST's calls (the same sender): they go with the token it came with, so a
      // refreshed token takes over, and an adopted session gets one from its first POST here
      spec.supervisor().actAs(spec.id(), spec.owner().name(), post.callerToken());
    }
    if (posts.refusedBatch(post, client)) {
      return client;
    }
    PostHandling.Taken taken = posts.take(post, client);
    taken.answered().forEach(timers::cancel); // the client answered: no deadline any more
    taken.awaited().forEach(this::await);
    if (taken.client() != client) {
      clientKnown(taken.client());
    }
    replicate(taken.client());
    return taken.client();
  }

  /** The client's protocol is known: its streams are resumable if it says so. */
  private void clientKnown(ClientRequests.Client client) {
    StreamResumption replay =
        new StreamResumption(
            spec.settings().sseResume(),
            new StreamResumption.PostTimers() {
              @Override
              public void start(Duration delay, ExchangeSink post) {
                timers.startSingleTimer(new StreamTimer(post), new StreamTimer(post), delay);
              }

              @Override
              public void cancel(ExchangeSink post) {
                timers.cancel(new StreamTimer(post));
              }
            });
    replay.enableFor(client.protocolVersion());
    if (replay.enabled()) { // else the shared pass-through one stays
      streams.replayWith(replay);
    }
  }

  /**
   * In a cluster, the session's protocol state as it is now goes to the replicas when it changed
   * (initialize, log level, subscriptions): a survivor adopts the session from it.
   */
  private void replicate(ClientRequests.Client client) {
    if (!spec.replication().on() || client == null) {
      return;
    }
    SessionRecord now =
        SessionRecord.of(spec.id(), spec.owner(), client, requests, spec.replication().node());
    if (!now.equals(replicated)) {
      replicated = now;
      spec.replication().publish(now);
    }
  }

  /**
   * A call's outcome: taken at once when it completes on the thread handing over the call's answer
   * ({@link #fromContext}), else piped to this actor.
   */
  private void await(PostHandling.Awaited awaited) {
    awaited
        .outcome()
        .whenComplete(
            (result, failure) -> {
              Answered answered =
                  new Answered(awaited.requestId(), awaited.sequence(), result, failure);
              if (Thread.currentThread() == answering && answeredInline == null) {
                answeredInline = answered;
              } else {
                context.getSelf().tell(answered);
              }
            });
  }

  /** What the supervisor delivers the context; a call's answer may complete a request at once. */
  private void fromContext(ContextDelivery.Command message, ClientRequests.Client client) {
    answering = Thread.currentThread();
    try {
      ContextDelivery.deliver(message, listener, spec.id(), log);
    } finally {
      answering = null;
    }
    Answered answered = answeredInline;
    if (answered != null) {
      answeredInline = null;
      answered(answered, client);
    }
  }

  private void answered(Answered answered, ClientRequests.Client client) {
    if (posts.answered(
        client,
        answered.requestId(),
        answered.sequence(),
        answered.outcome(),
        answered.failure())) {
      spec.gate().active();
    }
    replicate(client);
  }

  /**
   * The registry's idle sweep: idle for its idle timeout, with nothing going on, the session asks
   * to be ended; it closes its gate only if nothing is on its way, so no request races that end.
   */
  private void askToEndIfIdle() {
    Duration idleTimeout = spec.idleTimeout().get();
    if (spec.gate().idleFor(idleTimeout)
        && streams.nothingInFlight()
        && spec.gate().closeIfIdle()) {
      spec.registry().tell(new DownstreamSessions.EndMe(spec.id(), "idle for " + idleTimeout));
    }
  }

  // ------------------------------------------------------------------------------------- lifecycle

  /**
   * Cancels what is in flight, answers it and fails what upstreams asked; then it is an {@link
   * EndedSession}.
   */
  private Behavior<Command> onEnd(End end) {
    spec.gate().close();
    if (!DELETED_BY_CLIENT.equals(end.reason())) {
      log.info(
          "session {} on {} ended: {}",
          SessionIds.redact(spec.id()),
          requests.path(),
          end.reason());
    } else if (log.isDebugEnabled()) {
      log.debug(
          "session {} on {} ended: {}",
          SessionIds.redact(spec.id()),
          requests.path(),
          end.reason());
    }
    streams
        .allInFlight()
        .forEach(
            call -> {
              call.cancelled = true;
              call.calls.cancelAll();
            });
    streams.endAll(
        call ->
            end.handedOver()
                ? JsonRpcResponse.failure(call.request.id(), NODE_STOPPED)
                : JsonRpcResponse.failure(
                    call.request.id(), REQUEST_CANCELLED, "the downstream session ended"));
    relay.failAll("the downstream session ended");
    timers.cancelAll();
    if (!end.handedOver() && replicated != null) {
      spec.replication().forget(spec.id());
    }
    return EndedSession.ending(context, spec.supervisor(), spec.id(), spec.gate(), end.replyTo());
  }
}
