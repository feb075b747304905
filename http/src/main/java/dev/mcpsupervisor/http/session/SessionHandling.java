package dev.mcpsupervisor.http.session;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.REQUEST_CANCELLED;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.endpoint.Outcome;
import dev.mcpsupervisor.http.endpoint.UpstreamCalls;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ExchangeSink;
import dev.mcpsupervisor.http.stream.StreamReplay;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one {@link DownstreamSession} does with its messages, apart from its mailbox: its parts
 * (client requests, streams, POSTs, a listen stream, upstream traffic), which GET streams it opens,
 * when it is idle and asks its registry to end it, and what it cancels at its end. Owned by that
 * actor alone, which keeps the states and gets back what completes later through {@link Wiring}.
 */
final class SessionHandling {

  private static final Logger log = LoggerFactory.getLogger(SessionHandling.class);

  /**
   * The actor's side.
   *
   * @param streamTimer starts a resumable stream's timer ({@link StreamReplay#timer})
   * @param serverRequestExpired the message for a server request the client did not answer in time
   */
  record Wiring(
      TimerScheduler<DownstreamSession.Command> timers,
      BiConsumer<Duration, ExchangeSink> streamTimer,
      Function<JsonNode, DownstreamSession.Command> serverRequestExpired,
      PostHandling.Answers answers,
      Supplier<Logger> log) {}

  final ClientRequests requests;
  final DownstreamStreams streams;
  final PostHandling posts;
  final UpstreamTraffic upstreams;

  /** Made by the session's listen stream (2026-07-28), if any: null in a session-era one. */
  private ListenStream listen;

  private final String id;
  private final SessionSupervisor supervisor;
  private final Duration idleTimeout;
  private final ActorRef<DownstreamSessions.Command> registry;
  private final Wiring wiring;
  private final GatewaySettings settings;
  private SessionListener listener;

  /** When the session was last active ({@link System#nanoTime}): the registry's sweep asks. */
  private long activeAt = System.nanoTime();

  /** What the HTTP routes tell here passes it, so that an idle end never races a message. */
  private final RouteGate gate;

  SessionHandling(SessionSpec spec, Wiring wiring) {
    String id = spec.id();
    SessionSupervisor supervisor = spec.supervisor();
    GatewaySettings settings = spec.settings();
    ActorRef<DownstreamSessions.Command> registry = spec.registry();
    this.id = id;
    this.gate = spec.gate();
    this.supervisor = supervisor;
    this.idleTimeout = spec.idleTimeout();
    this.registry = registry;
    this.wiring = wiring;
    this.settings = settings;
    this.requests = new ClientRequests(id, spec.endpoint(), supervisor);
    this.streams = new DownstreamStreams();
    UpstreamRelay relay =
        new UpstreamRelay(
            id,
            streams,
            requests,
            wiring.timers(),
            wiring.serverRequestExpired(),
            settings.serverRequestTimeout(),
            wiring.log());
    this.posts =
        new PostHandling(
            id,
            supervisor,
            registry,
            requests,
            streams,
            relay,
            wiring.answers(),
            settings.limits().maxInflightPerDownstreamSession(),
            wiring.log());
    this.upstreams = new UpstreamTraffic(relay);
  }

  /** The session's listen stream, made on first use (see {@link #listen}). */
  ListenStream listen() {
    if (listen == null) {
      listen = new ListenStream(requests);
      upstreams.listening(listen);
    }
    return listen;
  }

  /** The session starts: it hears what its upstreams send. */
  void start(SessionListener listener) {
    this.listener = listener;
    supervisor.register(id, listener);
  }

  /** What the supervisor delivers the session's context: to its listener. */
  void fromContext(ContextDelivery.Command message) {
    ContextDelivery.deliver(message, listener, id, log);
  }

  /** The same once the session ended: answers still pass, server requests are refused. */
  void fromEnded(ContextDelivery.Command message) {
    ContextDelivery.deliverReleased(message, id);
  }

  /** A message the routes told here is taken. */
  void routed() {
    gate.processed();
  }

  /** A message the routes told here is taken, and it is activity: the idle time restarts. */
  void routedActivity() {
    gate.processed();
    activeAt = System.nanoTime();
  }

  /** A message the routes told here once it ended: taken, and answered that the session is gone. */
  void refuseEnded(DownstreamSession.Routed routed) {
    gate.processed();
    routed.exchange().tell(routed.whenGone());
  }

  /** Whether the session, once ended, answered everything the routes told it. */
  boolean routedDrained() {
    return gate.drained();
  }

  /** Takes a POST's messages; the client as it is now (a new one once initialize is taken). */
  ClientRequests.Client take(DownstreamSession.Post post, ClientRequests.Client client) {
    ClientRequests.Client now = posts.take(post, client);
    if (now != client) {
      StreamReplay replay = new StreamReplay(settings.sseResume(), wiring.streamTimer());
      replay.enableFor(now.protocolVersion());
      if (replay.enabled()) { // else the shared pass-through one stays
        streams.replayWith(replay);
      }
    }
    return now;
  }

  /** Answers whether an exchange may have finished. */
  boolean answered(ClientRequests.Client client, DownstreamSession.Answered answered) {
    if (!posts.answered(
        client,
        answered.requestId(),
        answered.sequence(),
        answered.outcome(),
        answered.failure())) {
      return false;
    }
    activeAt = System.nanoTime();
    return true;
  }

  /**
   * The client a listen request makes, or null when this session serves one already (a fault of the
   * routes: it is refused).
   */
  ClientRequests.Client beginListen(
      DownstreamSession.Listen request, ClientRequests.Client client) {
    routed();
    if (client != null) { // made for one stream: a second one is a fault of the routes
      request.exchange().tell(Exchange.Refused.of(409, "Conflict: the session is in use"));
      return null;
    }
    return listen().begin(request);
  }

  /** What an initialize would have told: which servers are there, and what they offer. */
  CompletionStage<Outcome> discover(ClientRequests.Client asking) {
    return listen().initialize(asking, new UpstreamCalls(supervisor, id, "discover"));
  }

  /** GET: opens the session's one server-to-client stream, unless {@code draining}. */
  void openStream(DownstreamSession.OpenStream open, boolean draining) {
    routedActivity();
    ExchangeSink exchange = open.exchange();
    if (draining) {
      exchange.tell(Exchange.Refused.of(503, "the gateway is shutting down"));
    } else if (!streams.openGetStream(exchange)) {
      exchange.tell(
          Exchange.Refused.of(409, "Conflict: this session already has an open GET stream"));
    }
  }

  /** GET with Last-Event-ID, unless {@code draining}. */
  void resumeStream(DownstreamSession.ResumeStream resume, boolean draining) {
    routedActivity();
    if (draining) {
      resume.exchange().tell(Exchange.Refused.of(503, "the gateway is shutting down"));
    } else {
      streams.resume(resume.lastEventId(), resume.exchange());
    }
  }

  /**
   * An exchange closed (so one may have finished); answers whether it was the listen stream's, with
   * which the session ends.
   */
  boolean exchangeClosed(ExchangeSink exchange) {
    routed();
    streams.closed(exchange);
    return listen != null && listen.endedWith(exchange);
  }

  /**
   * What the servers offer is known: the listen stream opens; answers its subscriptions to wait for
   * (see {@link ListenStream#ready}), or null.
   */
  CompletionStage<Map<String, String>> listenReady(Outcome outcome, Throwable failure) {
    return listen().ready(outcome, failure, new UpstreamCalls(supervisor, id, "listen"));
  }

  /** The gateway stops: no GET stream any more. */
  void drain() {
    streams.closeGetStream();
    if (listen != null) {
      listen.drain();
    }
  }

  /**
   * The registry's idle sweep: idle for its idle timeout, with nothing going on, the session asks
   * to be ended.
   */
  void idleCheck() {
    if (System.nanoTime() - activeAt >= idleTimeout.toNanos()
        && streams.nothingInFlight()
        && (listen == null || !listen.isOpen())) {
      askToEnd("idle for " + idleTimeout);
    }
  }

  private void askToEnd(String reason) {
    // closed only if nothing is on its way: then no request can reach it any more
    if (gate.closeIfIdle()) {
      registry.tell(new DownstreamSessions.EndMe(id, reason));
    }
  }

  CompletionStage<Void> releaseLeases() {
    return supervisor.releaseAll(id);
  }

  /**
   * The session ends: cancels what is in flight, answers it and fails what upstreams asked. A
   * listen stream's session ends with its stream, so its end is logged at debug only.
   */
  void end(String reason, ClientRequests.Client client) {
    gate.close();
    if (client != null && client.isStateless()) {
      // the class's logger: the actor's own is built on first use, a cost per request here
      log.debug("session {} on {} ended: {}", SessionIds.redact(id), requests.path(), reason);
    } else {
      wiring
          .log()
          .get()
          .info("session {} on {} ended: {}", SessionIds.redact(id), requests.path(), reason);
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
            JsonRpcResponse.failure(
                call.request.id(), REQUEST_CANCELLED, "the downstream session ended"));
    upstreams.failAll("the downstream session ended");
  }
}
