package dev.mcpsupervisor.actors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.actors.SupervisorSnapshot.SessionSnapshot;
import dev.mcpsupervisor.upstream.ConnectionClosed;
import dev.mcpsupervisor.upstream.ConnectionListener;
import dev.mcpsupervisor.upstream.UpstreamConnection;
import dev.mcpsupervisor.upstream.Failures;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One upstream MCP session: owns its connection, runs the MCP handshake, and correlates JSON-RPC itself (its own
 * upstream ids, a pending map, a deadline timer per call). States: {@link #connecting()} → {@link #initializing()} →
 * {@link #ready()} → {@link #restarting()} (on a dead connection, with backoff, then connecting again) → closed.
 *
 * <p>A dead connection is not an actor failure: the actor keeps its waiting requests and its pending map across
 * reconnects, in its own fields (not a StashBuffer, which an actor restart would drop). Should the actor itself crash
 * (a bug), the PreRestart and PostStop handlers answer everything it holds before it restarts or stops, so no caller
 * ever hangs.
 *
 * <p>The session never stops on its own: it reports to its key actor, which removes it from its table first and only
 * then sends {@link Close}, so a racing lease can never be handed a dying session.
 */
public final class SessionActor {

  public interface Command {}

  /** A caller's request, to be sent when the session is ready (in arrival order). */
  public record Forward(UpstreamCall call) implements Command {}

  /** The caller gave up: the call is answered as cancelled and {@code notifications/cancelled} goes upstream. */
  public record Cancel(long callId) implements Command {}

  /**
   * A client notification to pass upstream (e.g. roots/list_changed); dropped while not ready. A server-to-client
   * request that then arrives with no call in flight goes to {@code context}.
   */
  public record ClientNotification(String context, String method, JsonNode params) implements Command {}

  /** The context, leased here, has a listener: its notifications, server requests and answers go through it. */
  public record Leased(String context, ActorRef<ContextDelivery.Command> delivery) implements Command {}

  /** The context with a listener released its lease here. */
  public record Unleased(String context) implements Command {}

  /** Answers with the upstream's initialize result once ready (at once if ready now). */
  public record AwaitReady(ActorRef<AcquireReply> replyTo) implements Command {}

  /** Answers everything held, closes the connection, stops. Sent only by the key actor. */
  public record Close(CloseReason reason, String detail) implements Command {}

  public record GetSnapshot(ActorRef<SessionSnapshot> replyTo) implements Command {}

  /** A context's answer to a server-to-client request; {@code localId} is the id the context was shown. */
  public record ServerRequestAnswer(String localId, JsonRpcResponse response) implements Command {}

  /** Exactly one of the two is non-null. */
  public record AcquireReply(JsonNode initializeResult, JsonRpcError error) {
    static AcquireReply ready(JsonNode initializeResult) {
      return new AcquireReply(initializeResult, null);
    }

    static AcquireReply failed(JsonRpcError error) {
      return new AcquireReply(null, error);
    }
  }

  public enum CloseReason {
    IDLE("idle"),
    RELEASED("released"),
    FAILURES("failures"),
    CIRCUIT_OPEN("circuit_open"),
    CONNECT_FAILED("connect_failed"),
    SHUTDOWN("shutdown");

    private final String word;

    CloseReason(String word) {
      this.word = word;
    }

    /** The reason as metrics name it. */
    public String word() {
      return word;
    }
  }

  // Messages the session sends itself. Connection events carry the generation of the connection they came from, so
  // that a late event of an abandoned connection is recognized and ignored.
  private interface ConnectionEvent extends Command {
    long generation();
  }

  private record Connected(UpstreamConnection connection, long generation) implements ConnectionEvent {}

  private record ConnectFailed(String reason, long generation) implements ConnectionEvent {}

  private record AttemptTimedOut(long generation, String what) implements ConnectionEvent {}

  private record Received(JsonRpcMessage message, JsonNode relatedRequestId, long generation) implements ConnectionEvent {}

  private record ConnectionLost(ConnectionClosed cause, long generation) implements ConnectionEvent {}

  private record SendFailed(long upstreamId, String reason, long generation) implements ConnectionEvent {}

  private enum Reconnect implements Command {
    INSTANCE
  }

  private enum PingTick implements Command {
    INSTANCE
  }

  private record PingTimedOut(long upstreamId) implements Command {}

  private record DeadlineExceeded(long callId) implements Command {}

  private record RetryCall(long callId) implements Command {}

  private record ServerRequestExpired(String localId) implements Command {}

  private enum ConnectionClosedByUs implements Command {
    INSTANCE
  }

  // Timer keys.
  private record DeadlineTimer(long callId) {}

  private record RetryTimer(long callId) {}

  private record ServerRequestTimer(String localId) {}

  private enum TimerKey {
    ATTEMPT,
    RECONNECT,
    PING,
    PING_TIMEOUT,
    CLOSE
  }

  public static Behavior<Command> create(
      long sessionId, KeyEnvironment env, ActorRef<ServerKeyActor.Command> parent) {
    SupervisorSettings settings = env.settings();
    return Behaviors.<Command>supervise(
            Behaviors.setup(
                context ->
                    Behaviors.withTimers(
                        timers -> new SessionActor(sessionId, env, parent, context, timers).start())))
        .onFailure(
            Exception.class,
            SupervisorStrategy.restartWithBackoff(
                settings.restartBackoffMin(), settings.restartBackoffMax(), settings.restartBackoffRandomFactor()));
  }

  private enum Phase {
    CONNECTING("connecting"),
    INITIALIZING("initializing"),
    READY("ready"),
    RESTARTING("restarting"),
    CLOSED("closed");

    final String word;

    Phase(String word) {
      this.word = word;
    }
  }

  private static final int MAX_TOOLS_LIST_PAGES = 20;

  private final long sessionId;
  private final KeyEnvironment env;
  private final String server;
  private final SupervisorSettings settings;
  private final ActorRef<ServerKeyActor.Command> parent;
  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final Instant startedAt = Instant.now();

  private Phase phase = Phase.CONNECTING;
  private UpstreamConnection connection;
  private long generation;
  private boolean everReady;
  private int failedAttempts;
  private int restarts;
  private JsonNode initializeResult;
  private boolean toolsCapability;
  private int consecutiveFailures;
  private boolean reportedFailing;
  private boolean reportedSaturated;
  private long initializeId = -1;
  private long pingId = -1;
  private int toolsListPages;

  /** Every call held, by call id. */
  private final Map<Long, TrackedCall> held = new HashMap<>();
  private final WaitingCalls waiting;
  private final PendingRequests pending = new PendingRequests();
  private final ProgressTokens progressTokens;
  private final ServerRequests serverRequests;
  private final RetryPolicy retryPolicy = new RetryPolicy();
  private final List<ActorRef<AcquireReply>> readyWaiters = new ArrayList<>();
  /** The delivery actors of the contexts leased here that have a listener (the key actor tells), in lease order. */
  private final Map<String, ActorRef<ContextDelivery.Command>> deliveries = new LinkedHashMap<>();
  /** Who last sent the upstream a client notification: a server request with no call in flight is for it. */
  private String lastNotifier;

  private SessionActor(
      long sessionId,
      KeyEnvironment env,
      ActorRef<ServerKeyActor.Command> parent,
      ActorContext<Command> context,
      TimerScheduler<Command> timers) {
    this.sessionId = sessionId;
    this.env = env;
    this.server = env.serverName();
    this.settings = env.settings();
    this.parent = parent;
    this.context = context;
    this.timers = timers;
    this.waiting = new WaitingCalls(settings.stashCapacity());
    this.progressTokens = new ProgressTokens(sessionId);
    this.serverRequests = new ServerRequests(env.keyId(), sessionId);
  }

  private Behavior<Command> start() {
    // after a crash-restart the key actor may still believe the old instance's state: correct it
    parent.tell(new ServerKeyActor.SessionLoad(sessionId, false));
    connect();
    return connecting();
  }

  // ---------------------------------------------------------------------------------------------------- connecting

  private Behavior<Command> connecting() {
    phase = Phase.CONNECTING;
    return withCommonHandlers(
        Behaviors.receive(Command.class)
            .onMessage(Connected.class, this::onConnected)
            .onMessage(ConnectFailed.class, this::isCurrent, failed -> attemptFailed(failed.reason()))
            .onMessage(AttemptTimedOut.class, this::isCurrent, timedOut -> attemptFailed(timedOut.what()))
            .onMessage(ConnectionLost.class, this::isUnexpected, lost -> attemptFailed(describe(lost.cause()))));
  }

  private void connect() {
    long attemptGeneration = ThreadLocalRandom.current().nextLong();
    generation = attemptGeneration;
    ActorRef<Command> self = context.getSelf();
    ConnectionListener listener =
        new ConnectionListener() {
          @Override
          public void onMessage(JsonRpcMessage message, JsonNode relatedRequestId) {
            self.tell(new Received(message, relatedRequestId, attemptGeneration));
          }

          @Override
          public void onClosed(ConnectionClosed cause) {
            self.tell(new ConnectionLost(cause, attemptGeneration));
          }
        };
    CompletionStage<UpstreamConnection> opening;
    try {
      opening = env.connector().connect(env.server().spec(), listener);
    } catch (RuntimeException e) {
      opening = CompletableFuture.failedFuture(e);
    }
    context.pipeToSelf(
        opening,
        (opened, failure) ->
            failure == null
                ? new Connected(opened, attemptGeneration)
                : new ConnectFailed(describe(failure), attemptGeneration));
    timers.startSingleTimer(
        TimerKey.ATTEMPT,
        new AttemptTimedOut(attemptGeneration, "connect timed out after " + settings.connectTimeout().toMillis() + " ms"),
        settings.connectTimeout());
  }

  private Behavior<Command> onConnected(Connected connected) {
    if (!isCurrent(connected)) {
      closeQuietly(connected.connection()); // an abandoned attempt (it timed out) opened after all
      return Behaviors.same();
    }
    connection = connected.connection();
    initializeId =
        sendInternal(PendingRequests.Internal.INITIALIZE, McpMethods.INITIALIZE, Handshake.initializeParams());
    timers.startSingleTimer(
        TimerKey.ATTEMPT,
        new AttemptTimedOut(
            generation, "initialize timed out after " + settings.initializeTimeout().toMillis() + " ms"),
        settings.initializeTimeout());
    return initializing();
  }

  // -------------------------------------------------------------------------------------------------- initializing

  private Behavior<Command> initializing() {
    phase = Phase.INITIALIZING;
    return withCommonHandlers(
        Behaviors.receive(Command.class)
            .onMessage(Received.class, this::isCurrentAndOpen, this::onReceivedWhileInitializing)
            .onMessage(AttemptTimedOut.class, this::isCurrent, timedOut -> attemptFailed(timedOut.what()))
            .onMessage(ConnectionLost.class, this::isUnexpected, lost -> attemptFailed(describe(lost.cause())))
            .onMessage(
                SendFailed.class,
                failed -> isCurrentAndOpen(failed) && failed.upstreamId() == initializeId,
                failed -> attemptFailed("initialize could not be sent: " + failed.reason())));
  }

  private Behavior<Command> onReceivedWhileInitializing(Received received) {
    if (!(received.message() instanceof JsonRpcResponse response) || !isInitializeResponse(response)) {
      // logging or a roots/list request may come before the initialize response: handle it as usual
      onUpstreamMessage(received);
      return Behaviors.same();
    }
    pending.removeInternal(initializeId);
    String problem = Handshake.problemWith(response);
    if (problem != null) {
      return attemptFailed(problem);
    }
    initializeResult = response.result();
    timers.cancel(TimerKey.ATTEMPT);
    transmit(new JsonRpcNotification(McpMethods.NOTIFICATION_INITIALIZED, null), 0);
    return becomeReady();
  }

  private boolean isInitializeResponse(JsonRpcResponse response) {
    Long id = PendingRequests.idOf(response.id());
    return id != null && id == initializeId;
  }

  private Behavior<Command> becomeReady() {
    phase = Phase.READY;
    everReady = true;
    failedAttempts = 0;
    consecutiveFailures = 0;
    reportedFailing = false;
    toolsCapability = initializeResult.path("capabilities").has("tools");
    retryPolicy.forgetTools();
    parent.tell(new ServerKeyActor.SessionReady(sessionId));
    readyWaiters.forEach(waiter -> waiter.tell(AcquireReply.ready(initializeResult)));
    readyWaiters.clear();
    if (toolsCapability) {
      fetchTools(null);
    }
    timers.startTimerWithFixedDelay(TimerKey.PING, PingTick.INSTANCE, settings.pingInterval());
    drainWaiting();
    reportLoad();
    return ready();
  }

  // --------------------------------------------------------------------------------------------------------- ready

  private Behavior<Command> ready() {
    phase = Phase.READY;
    return withCommonHandlers(
        Behaviors.receive(Command.class)
            .onMessage(Received.class, this::isCurrentAndOpen, this::onReceivedWhileReady)
            .onMessage(ConnectionLost.class, this::isUnexpected, lost -> connectionLost(describe(lost.cause())))
            .onMessage(SendFailed.class, this::isCurrentAndOpen, this::onSendFailed)
            .onMessage(ClientNotification.class, this::onClientNotification)
            .onMessage(PingTick.class, notUsed -> onPingTick())
            .onMessage(PingTimedOut.class, this::onPingTimedOut));
  }

  private Behavior<Command> onReceivedWhileReady(Received received) {
    onUpstreamMessage(received);
    return Behaviors.same();
  }

  private void onUpstreamMessage(Received received) {
    JsonRpcMessage message = received.message();
    if (message instanceof JsonRpcResponse response) {
      onResponse(response);
    } else if (message instanceof JsonRpcRequest request) {
      onServerRequest(request, received.relatedRequestId());
    } else if (message instanceof JsonRpcNotification notification) {
      onNotification(notification, received.relatedRequestId());
    }
  }

  private void onResponse(JsonRpcResponse response) {
    Long upstreamId = PendingRequests.idOf(response.id());
    TrackedCall call = pending.removeCall(upstreamId);
    if (call != null) {
      consecutiveFailures = 0;
      if (RetryPolicy.saysStillInitializing(response)) {
        scheduleStillInitializingRetry(call);
      } else {
        if (!response.isError() && McpMethods.TOOLS_LIST.equals(call.method())) {
          retryPolicy.learnTools(response.result());
        }
        finish(call, call.call().response(response), response.isError() ? "error" : null);
      }
      drainWaiting();
      reportLoad();
      return;
    }
    PendingRequests.Internal kind = pending.removeInternal(upstreamId);
    if (kind == PendingRequests.Internal.TOOLS_LIST && !response.isError()) {
      retryPolicy.learnTools(response.result());
      String cursor = response.result().path("nextCursor").asText(null);
      if (cursor != null && toolsListPages < MAX_TOOLS_LIST_PAGES) {
        fetchTools(cursor);
      }
    } else if (kind == PendingRequests.Internal.PING) {
      pingId = -1;
      timers.cancel(TimerKey.PING_TIMEOUT);
    } else if (kind == null) {
      context.getLog().debug("{} session {}: dropping late response for id {}", server, sessionId, response.id());
    }
  }

  private void onNotification(JsonRpcNotification notification, JsonNode relatedRequestId) {
    String method = notification.method();
    if (McpMethods.NOTIFICATION_PROGRESS.equals(method)) {
      routeProgress(notification);
    } else if (McpMethods.NOTIFICATION_CANCELLED.equals(method)) {
      routeServerCancellation(notification);
    } else {
      if (McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED.equals(method)) {
        retryPolicy.forgetTools();
        if (toolsCapability && phase == Phase.READY) {
          fetchTools(null);
        }
      }
      broadcast(notification, relatedRequestId);
    }
  }

  /**
   * Logging on a call's response stream goes to that call's context only; without one (stdio, the GET stream), and for
   * list_changed and resources/updated, to every context leased here that has a listener.
   */
  private void broadcast(JsonRpcNotification notification, JsonNode relatedRequestId) {
    TrackedCall related =
        McpMethods.NOTIFICATION_MESSAGE.equals(notification.method()) ? pending.relatedCall(relatedRequestId) : null;
    if (related != null) {
      deliver(deliveryFor(related), notification, related.call().tag());
      return;
    }
    for (ActorRef<ContextDelivery.Command> delivery : deliveries.values()) {
      deliver(delivery, notification, null);
    }
  }

  private void routeProgress(JsonRpcNotification notification) {
    JsonNode token = ProgressTokens.tokenOf(notification);
    TrackedCall call = progressTokens.callOf(token);
    if (call == null) {
      context.getLog().debug("{} session {}: dropping progress for unknown token {}", server, sessionId, token);
      return;
    }
    deliver(deliveryFor(call), ProgressTokens.forCaller(notification, call), call.call().tag());
  }

  /** The upstream withdrew one of its server-to-client requests: tell the context that holds it. */
  private void routeServerCancellation(JsonRpcNotification notification) {
    JsonNode requestId = notification.params() == null ? null : notification.params().get("requestId");
    ServerRequests.Pending withdrawn = requestId == null ? null : serverRequests.removeByUpstreamId(requestId);
    if (withdrawn == null) {
      return;
    }
    timers.cancel(new ServerRequestTimer(withdrawn.localId()));
    ObjectNode params = ((ObjectNode) notification.params()).deepCopy();
    params.put("requestId", withdrawn.localId());
    deliver(withdrawn.delivery(), notification.withParams(params), null);
  }

  /** To a context's listener (none: nobody listens, nothing to do), in the order the upstream sent it. */
  private void deliver(ActorRef<ContextDelivery.Command> delivery, JsonRpcNotification notification, String tag) {
    if (delivery != null) {
      delivery.tell(new ContextDelivery.Notification(server, notification, tag));
    }
  }

  /** Where a call's notifications and answer go: its context's delivery actor now, else the one it came with. */
  private ActorRef<ContextDelivery.Command> deliveryFor(TrackedCall call) {
    ActorRef<ContextDelivery.Command> current = deliveries.get(call.call().context());
    return current != null ? current : call.call().delivery();
  }

  /**
   * Sampling, elicitation, roots: to the context that owns the call in flight; with none in flight (roots/list after a
   * roots/list_changed), to the context that last sent a notification here, else to any leased context with a
   * listener. Nobody to ask → an error upstream at once (the upstream is never left waiting).
   */
  private void onServerRequest(JsonRpcRequest request, JsonNode relatedRequestId) {
    TrackedCall owner = pending.owningCall(relatedRequestId);
    ActorRef<ContextDelivery.Command> delivery;
    String why;
    if (owner != null) {
      delivery = deliveryFor(owner);
      why = "context " + owner.call().context() + " has no listener";
    } else {
      delivery = lastNotifier != null ? deliveries.get(lastNotifier) : null;
      if (delivery == null && !deliveries.isEmpty()) {
        delivery = deliveries.values().iterator().next();
      }
      why = "no request in flight and no leased context with a listener";
    }
    if (delivery == null) {
      transmit(JsonRpcResponse.failure(request.id(), SupervisorErrors.noClient(server, request.method(), why)), 0);
      return;
    }
    ServerRequests.Pending asked = serverRequests.add(request.id(), delivery, request.method(), generation);
    timers.startSingleTimer(
        new ServerRequestTimer(asked.localId()),
        new ServerRequestExpired(asked.localId()),
        settings.serverRequestTimeout());
    delivery.tell(
        new ContextDelivery.ServerRequest(
            server,
            request.withId(TextNode.valueOf(asked.localId())),
            owner == null ? null : owner.call().tag(),
            context.getSelf()));
  }

  private Behavior<Command> onClientNotification(ClientNotification notification) {
    lastNotifier = notification.context();
    if (!McpMethods.NOTIFICATION_INITIALIZED.equals(notification.method())) { // the session sent its own
      transmit(new JsonRpcNotification(notification.method(), notification.params()), 0);
    }
    return Behaviors.same();
  }

  private Behavior<Command> onSendFailed(SendFailed failed) {
    TrackedCall call = pending.removeCall(failed.upstreamId());
    if (call == null) {
      pending.removeInternal(failed.upstreamId());
      context.getLog().debug("{} session {}: send failed: {}", server, sessionId, failed.reason());
      return Behaviors.same();
    }
    countFailure();
    if (call.retryAfterLoss(retryPolicy.isSafeToRetry(call))) {
      dispatch(call);
    } else {
      answerError(call, SupervisorErrors.sessionLost(server, call.method(), "send failed: " + failed.reason()));
    }
    drainWaiting();
    reportLoad();
    return Behaviors.same();
  }

  private Behavior<Command> onPingTick() {
    if (pingId < 0 && pending.hasNoCalls()) {
      pingId = sendInternal(PendingRequests.Internal.PING, McpMethods.PING, null);
      timers.startSingleTimer(TimerKey.PING_TIMEOUT, new PingTimedOut(pingId), settings.pingTimeout());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onPingTimedOut(PingTimedOut timedOut) {
    if (timedOut.upstreamId() != pingId) {
      return Behaviors.same();
    }
    return connectionLost("ping timed out after " + settings.pingTimeout().toMillis() + " ms");
  }

  /**
   * The connection died under a ready session: retry the safe in-flight calls once on the next connection (first, in
   * their original order), answer the others "session lost", and reconnect after a backoff.
   */
  private Behavior<Command> connectionLost(String reason) {
    context.getLog().info("{} session {}: connection lost ({}), restarting", server, sessionId, reason);
    env.observer().sessionRestarted(server, reason);
    restarts++;
    List<TrackedCall> requeued = new ArrayList<>();
    for (TrackedCall call : pending.takeCallsInSendOrder()) {
      if (call.retryAfterLoss(retryPolicy.isSafeToRetry(call))) {
        requeued.add(call);
      } else {
        answerError(call, SupervisorErrors.sessionLost(server, call.method(), reason));
      }
    }
    waiting.putFirst(requeued);
    dropConnection();
    parent.tell(new ServerKeyActor.SessionDown(sessionId, reason));
    return restarting();
  }

  // ---------------------------------------------------------------------------------------------------- restarting

  private Behavior<Command> restarting() {
    phase = Phase.RESTARTING;
    timers.startSingleTimer(
        TimerKey.RECONNECT,
        Reconnect.INSTANCE,
        settings.restartBackoff(failedAttempts, ThreadLocalRandom.current().nextDouble()));
    return withCommonHandlers(
        Behaviors.receive(Command.class)
            .onMessage(
                Reconnect.class,
                notUsed -> {
                  connect();
                  return connecting();
                }));
  }

  /** A connect or initialize failed: a fresh session gives up at once, a session that was ready retries. */
  private Behavior<Command> attemptFailed(String reason) {
    timers.cancel(TimerKey.ATTEMPT);
    dropConnection();
    failedAttempts++;
    context.getLog().info("{} session {}: attempt {} failed: {}", server, sessionId, failedAttempts, reason);
    parent.tell(new ServerKeyActor.AttemptFailed(sessionId, reason, !everReady));
    if (everReady) {
      return restarting();
    }
    JsonRpcError error = SupervisorErrors.unavailable(server, reason);
    answerEverything(call -> error, error);
    return failed(error);
  }

  // ----------------------------------------------------------------------------------------------- failed / closed

  /** Never became ready; waits for the key actor (which has already forgotten it) to send Close. */
  private Behavior<Command> failed(JsonRpcError error) {
    phase = Phase.CLOSED;
    return refusingEverything(
        error, Behaviors.receive(Command.class).onMessage(Close.class, notUsed -> Behaviors.stopped()));
  }

  private Behavior<Command> onClose(Close close) {
    context.getLog().debug("{} session {}: closing ({}: {})", server, sessionId, close.reason(), close.detail());
    JsonRpcError notReady =
        close.reason() == CloseReason.SHUTDOWN
            ? SupervisorErrors.shuttingDown()
            : SupervisorErrors.unavailable(server, "session " + sessionId + " closed: " + close.reason().word());
    Function<TrackedCall, JsonRpcError> errorFor =
        switch (close.reason()) {
          case SHUTDOWN -> call -> SupervisorErrors.shuttingDown();
          case CIRCUIT_OPEN, CONNECT_FAILED -> call -> SupervisorErrors.unavailable(server, close.detail());
          default -> call -> SupervisorErrors.sessionLost(server, call.method(), close.reason().word());
        };
    answerEverything(errorFor, notReady);
    timers.cancelAll();
    phase = Phase.CLOSED;
    if (connection == null) {
      return Behaviors.stopped();
    }
    UpstreamConnection closing = connection;
    connection = null;
    generation = 0;
    context.pipeToSelf(closeQuietly(closing), (done, failure) -> ConnectionClosedByUs.INSTANCE);
    timers.startSingleTimer(TimerKey.CLOSE, ConnectionClosedByUs.INSTANCE, settings.shutdownTimeout());
    return closing(notReady);
  }

  private Behavior<Command> closing(JsonRpcError error) {
    return refusingEverything(
        error,
        Behaviors.receive(Command.class).onMessage(ConnectionClosedByUs.class, notUsed -> Behaviors.stopped()));
  }

  /** Failed and closing: every new request and acquire gets the error; the state decides what ends it. */
  private Behavior<Command> refusingEverything(JsonRpcError error, BehaviorBuilder<Command> stateHandlers) {
    return stateHandlers
        .onMessage(Forward.class, forward -> reject(forward.call(), error))
        .onMessage(AwaitReady.class, await -> reply(await.replyTo(), AcquireReply.failed(error)))
        .onMessage(GetSnapshot.class, this::onGetSnapshot)
        .onMessage(Connected.class, this::closeAbandoned)
        .onAnyMessage(notUsed -> Behaviors.same())
        .onSignal(PostStop.class, signal -> onStopped())
        .build();
  }

  // ------------------------------------------------------------------------------------------- in every open state

  private Behavior<Command> withCommonHandlers(BehaviorBuilder<Command> stateHandlers) {
    return stateHandlers
        .onMessage(Forward.class, this::onForward)
        .onMessage(Cancel.class, this::onCancel)
        .onMessage(DeadlineExceeded.class, this::onDeadlineExceeded)
        .onMessage(RetryCall.class, this::onRetryCall)
        .onMessage(AwaitReady.class, this::onAwaitReady)
        .onMessage(GetSnapshot.class, this::onGetSnapshot)
        .onMessage(ServerRequestAnswer.class, this::onServerRequestAnswer)
        .onMessage(Leased.class, this::onLeased)
        .onMessage(Unleased.class, this::onUnleased)
        .onMessage(ServerRequestExpired.class, this::onServerRequestExpired)
        .onMessage(Close.class, this::onClose)
        .onMessage(Connected.class, this::closeAbandoned)
        // whatever else is left is stale: events of an abandoned connection, ticks of a state already left
        .onAnyMessage(notUsed -> Behaviors.same())
        .onSignal(PreRestart.class, signal -> onCrashed())
        .onSignal(PostStop.class, signal -> onStopped())
        .build();
  }

  private Behavior<Command> onForward(Forward forward) {
    UpstreamCall call = forward.call();
    if (held.containsKey(call.callId())) {
      return Behaviors.same();
    }
    boolean mustWait = phase != Phase.READY || !hasRoomInFlight();
    if (mustWait && waiting.isFull()) {
      return reject(call, SupervisorErrors.overloaded(sessionId, server, waiting.size()));
    }
    TrackedCall tracked = progressTokens.track(call);
    held.put(call.callId(), tracked);
    timers.startSingleTimer(
        new DeadlineTimer(call.callId()), new DeadlineExceeded(call.callId()), call.deadline());
    dispatch(tracked);
    reportLoad();
    return Behaviors.same();
  }

  private boolean hasRoomInFlight() {
    return pending.callCount() < env.server().maxInflightPerSession();
  }

  private void dispatch(TrackedCall call) {
    if (phase == Phase.READY && waiting.isEmpty() && hasRoomInFlight()) {
      send(call);
    } else {
      waiting.add(call);
    }
  }

  private void drainWaiting() {
    while (phase == Phase.READY && !waiting.isEmpty() && hasRoomInFlight()) {
      send(waiting.poll());
    }
  }

  private void send(TrackedCall call) {
    if (McpMethods.INITIALIZE.equals(call.method())) {
      // the session runs the handshake itself: a caller's initialize gets its result and is never sent again
      finish(call, call.call().response(JsonRpcResponse.success(LongNode.valueOf(0), initializeResult)), null);
      return;
    }
    long upstreamId = pending.sendCall(call);
    transmit(new JsonRpcRequest(LongNode.valueOf(upstreamId), call.method(), call.params), upstreamId);
  }

  private long sendInternal(PendingRequests.Internal kind, String method, JsonNode params) {
    long upstreamId = pending.sendInternal(kind);
    transmit(new JsonRpcRequest(LongNode.valueOf(upstreamId), method, params), upstreamId);
    return upstreamId;
  }

  private void fetchTools(String cursor) {
    toolsListPages = cursor == null ? 1 : toolsListPages + 1;
    ObjectNode params = null;
    if (cursor != null) {
      params = JsonRpcCodec.emptyObject();
      params.put("cursor", cursor);
    }
    sendInternal(PendingRequests.Internal.TOOLS_LIST, McpMethods.TOOLS_LIST, params);
  }

  /**
   * Hands a message to the connection. Only a failure comes back as a message (no message per successful send: this is
   * the hot path).
   */
  private void transmit(JsonRpcMessage message, long upstreamId) {
    ActorRef<Command> self = context.getSelf();
    long sentOn = generation;
    try {
      connection
          .send(message)
          .whenComplete(
              (done, failure) -> {
                if (failure != null) {
                  self.tell(new SendFailed(upstreamId, describe(failure), sentOn));
                }
              });
    } catch (RuntimeException e) {
      self.tell(new SendFailed(upstreamId, describe(e), sentOn));
    }
  }

  private Behavior<Command> onCancel(Cancel cancel) {
    TrackedCall call = held.get(cancel.callId());
    if (call != null) {
      withdraw(call, "cancelled by the client");
      answerError(call, SupervisorErrors.cancelled(call.method(), server));
    }
    return Behaviors.same();
  }

  private Behavior<Command> onDeadlineExceeded(DeadlineExceeded exceeded) {
    TrackedCall call = held.get(exceeded.callId());
    if (call != null) {
      if (call.state == TrackedCall.State.IN_FLIGHT) {
        countFailure();
      }
      withdraw(call, "timed out");
      answerError(call, SupervisorErrors.timeout(call.method(), server, call.call().deadline().toMillis()));
    }
    return Behaviors.same();
  }

  /** Takes a call back: if it was sent, the upstream is told to stop working on it. */
  private void withdraw(TrackedCall call, String reason) {
    if (call.state == TrackedCall.State.IN_FLIGHT
        && pending.removeCall(call.upstreamId) != null
        && phase == Phase.READY) {
      ObjectNode params = JsonRpcCodec.emptyObject();
      params.put("requestId", call.upstreamId);
      params.put("reason", reason);
      transmit(new JsonRpcNotification(McpMethods.NOTIFICATION_CANCELLED, params), 0);
      drainWaiting();
    }
  }

  private void scheduleStillInitializingRetry(TrackedCall call) {
    Duration delay = settings.stillInitializingRetry(call.scheduleStillInitializingRetry());
    timers.startSingleTimer(new RetryTimer(call.callId()), new RetryCall(call.callId()), delay);
  }

  private Behavior<Command> onRetryCall(RetryCall retry) {
    TrackedCall call = held.get(retry.callId());
    if (call != null && call.state == TrackedCall.State.RETRY_SCHEDULED) {
      dispatch(call);
    }
    return Behaviors.same();
  }

  private Behavior<Command> onAwaitReady(AwaitReady await) {
    if (phase == Phase.READY) {
      await.replyTo().tell(AcquireReply.ready(initializeResult));
    } else {
      readyWaiters.add(await.replyTo());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onGetSnapshot(GetSnapshot get) {
    OptionalLong pid = connection == null ? OptionalLong.empty() : connection.pid();
    get.replyTo()
        .tell(
            new SessionSnapshot(
                sessionId, phase.word, 0, pending.callCount(), waiting.size(), restarts, startedAt, pid));
    return Behaviors.same();
  }

  private Behavior<Command> onServerRequestAnswer(ServerRequestAnswer answer) {
    ServerRequests.Pending asked = serverRequests.remove(answer.localId());
    if (asked == null) {
      return Behaviors.same(); // expired, withdrawn, or its connection is gone
    }
    timers.cancel(new ServerRequestTimer(answer.localId()));
    if (phase == Phase.READY && asked.generation() == generation) {
      transmit(answer.response().withId(asked.upstreamId()), 0);
    }
    return Behaviors.same();
  }

  private Behavior<Command> onServerRequestExpired(ServerRequestExpired expired) {
    ServerRequests.Pending asked = serverRequests.remove(expired.localId());
    if (asked != null && phase == Phase.READY && asked.generation() == generation) {
      transmit(
          JsonRpcResponse.failure(
              asked.upstreamId(),
              SupervisorErrors.noClient(
                  server,
                  asked.method(),
                  "no answer within " + settings.serverRequestTimeout().toMillis() + " ms")),
          0);
    }
    return Behaviors.same();
  }

  private void countFailure() {
    consecutiveFailures++;
    if (consecutiveFailures >= settings.evictAfterConsecutiveFailures() && !reportedFailing) {
      reportedFailing = true;
      parent.tell(
          new ServerKeyActor.SessionFailing(sessionId, consecutiveFailures + " consecutive request failures"));
    }
  }

  /** Tells the key actor when the session starts or stops being full, so it opens another session only then. */
  private void reportLoad() {
    boolean saturated = pending.callCount() + waiting.size() >= env.server().maxInflightPerSession();
    if (saturated != reportedSaturated) {
      reportedSaturated = saturated;
      parent.tell(new ServerKeyActor.SessionLoad(sessionId, saturated));
    }
  }

  // ------------------------------------------------------------------------------------------------------ answering

  /** The one place a call is answered: removes it everywhere first, so a second answer is impossible. */
  private void finish(TrackedCall call, JsonRpcResponse response, String errorKind) {
    if (held.remove(call.callId()) == null) {
      return;
    }
    waiting.remove(call.callId());
    if (call.state == TrackedCall.State.IN_FLIGHT) {
      pending.removeCall(call.upstreamId);
    }
    progressTokens.forget(call);
    timers.cancel(new DeadlineTimer(call.callId()));
    timers.cancel(new RetryTimer(call.callId()));
    call.call().answer(response, deliveryFor(call));
    env.observer().requestCompleted(server, call.method(), System.nanoTime() - call.startNanos, errorKind);
  }

  private void answerError(TrackedCall call, JsonRpcError error) {
    finish(call, call.call().errorResponse(error), SupervisorErrors.kind(error));
    reportLoad();
  }

  private void answerEverything(Function<TrackedCall, JsonRpcError> errorFor, JsonRpcError acquireError) {
    List<TrackedCall> all = new ArrayList<>(held.values());
    all.sort(Comparator.comparingLong(TrackedCall::callId));
    all.forEach(call -> answerError(call, errorFor.apply(call)));
    readyWaiters.forEach(waiter -> waiter.tell(AcquireReply.failed(acquireError)));
    readyWaiters.clear();
    serverRequests.clear();
  }

  private Behavior<Command> reject(UpstreamCall call, JsonRpcError error) {
    call.reject(error, env.observer());
    return Behaviors.same();
  }

  private Behavior<Command> onLeased(Leased leased) {
    deliveries.put(leased.context(), leased.delivery());
    return Behaviors.same();
  }

  private Behavior<Command> onUnleased(Unleased unleased) {
    deliveries.remove(unleased.context());
    if (unleased.context().equals(lastNotifier)) {
      lastNotifier = null;
    }
    return Behaviors.same();
  }

  private <T> Behavior<Command> reply(ActorRef<T> replyTo, T reply) {
    replyTo.tell(reply);
    return Behaviors.same();
  }

  /** An unexpected exception: the actor restarts with a fresh state, so answer what it holds now. */
  private Behavior<Command> onCrashed() {
    context.getLog().warn("{} session {}: actor failed, restarting; answering what it held", server, sessionId);
    JsonRpcError notReady = SupervisorErrors.unavailable(server, "session " + sessionId + " failed");
    answerEverything(call -> SupervisorErrors.sessionLost(server, call.method(), "session actor failed"), notReady);
    dropConnection();
    parent.tell(new ServerKeyActor.SessionDown(sessionId, "session actor failed"));
    return Behaviors.same();
  }

  /** Stopped (by its key actor, or the system is terminating): nothing may stay unanswered or open. */
  private Behavior<Command> onStopped() {
    answerEverything(call -> SupervisorErrors.shuttingDown(), SupervisorErrors.shuttingDown());
    dropConnection();
    return Behaviors.same();
  }

  // ---------------------------------------------------------------------------------------------------- connection

  private void dropConnection() {
    timers.cancel(TimerKey.PING);
    timers.cancel(TimerKey.PING_TIMEOUT);
    pingId = -1;
    pending.clearInternal();
    serverRequests.localIds().forEach(localId -> timers.cancel(new ServerRequestTimer(localId)));
    serverRequests.clear();
    if (connection != null) {
      closeQuietly(connection);
      connection = null;
    }
  }

  private Behavior<Command> closeAbandoned(Connected connected) {
    if (connected.connection() != connection) {
      closeQuietly(connected.connection());
    }
    return Behaviors.same();
  }

  private CompletionStage<Void> closeQuietly(UpstreamConnection toClose) {
    try {
      return toClose.close();
    } catch (RuntimeException e) {
      context.getLog().warn("{} session {}: closing the connection failed: {}", server, sessionId, e.toString());
      return CompletableFuture.completedFuture(null);
    }
  }

  private boolean isCurrent(ConnectionEvent event) {
    return event.generation() == generation;
  }

  private boolean isCurrentAndOpen(ConnectionEvent event) {
    return isCurrent(event) && connection != null;
  }

  /** A loss of the current connection that the session did not cause itself. */
  private boolean isUnexpected(ConnectionLost lost) {
    return isCurrent(lost) && lost.cause().kind() != ConnectionClosed.Kind.CLOSED_BY_US;
  }

  private static String describe(ConnectionClosed cause) {
    String kind = cause.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ');
    return cause.detail() == null || cause.detail().isBlank() ? kind : kind + ": " + cause.detail();
  }

  private static String describe(Throwable failure) {
    return Failures.describe(failure);
  }
}
