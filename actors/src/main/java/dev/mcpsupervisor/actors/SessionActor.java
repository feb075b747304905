package dev.mcpsupervisor.actors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.actors.SupervisorSnapshot.SessionSnapshot;
import dev.mcpsupervisor.actors.connector.ConnectionClosed;
import dev.mcpsupervisor.actors.connector.ConnectionListener;
import dev.mcpsupervisor.actors.connector.UpstreamConnection;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ProtocolVersions;
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
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.regex.Pattern;
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

  /** A client notification to pass upstream (e.g. roots/list_changed); dropped while not ready. */
  public record ClientNotification(String method, JsonNode params) implements Command {}

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

  // Messages the session sends itself (connection events carry the generation of the connection they came from, so
  // that a late event of an abandoned connection is recognized and ignored).
  private record Connected(UpstreamConnection connection, long generation) implements Command {}

  private record ConnectFailed(String reason, long generation) implements Command {}

  private record AttemptTimedOut(long generation, String what) implements Command {}

  private record Received(JsonRpcMessage message, JsonNode relatedRequestId, long generation) implements Command {}

  private record ConnectionLost(ConnectionClosed cause, long generation) implements Command {}

  private record SendFailed(long upstreamId, String reason, long generation) implements Command {}

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

  private static final String CLIENT_NAME = "mcp-supervisor";
  private static final String CLIENT_VERSION =
      SessionActor.class.getPackage().getImplementationVersion() != null
          ? SessionActor.class.getPackage().getImplementationVersion()
          : "0.1.0";
  private static final int MAX_TOOLS_LIST_PAGES = 20;

  /** Wording of "not initialized yet" errors (GitHub's gateway: "invalid during session initialization"). */
  private static final Pattern STILL_INITIALIZING =
      Pattern.compile(
          "(?i)(not (yet )?initiali[sz]ed|still initiali[sz]ing|during (session )?initiali[sz]ation"
              + "|before initiali[sz]ation|initiali[sz]ation (is )?(not complete|in progress|pending))");

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

  private enum CallState {
    WAITING,
    IN_FLIGHT,
    RETRY_SCHEDULED
  }

  /** A caller's request this session holds, from arrival to its one answer. */
  private static final class Tracked {
    final UpstreamCall call;
    final JsonNode params;
    final JsonNode callerProgressToken;
    final String upstreamProgressToken;
    final long startNanos = System.nanoTime();
    CallState state = CallState.WAITING;
    long upstreamId = -1;
    boolean retriedAfterLoss;
    int stillInitializingRetries;

    Tracked(UpstreamCall call, JsonNode params, JsonNode callerProgressToken, String upstreamProgressToken) {
      this.call = call;
      this.params = params;
      this.callerProgressToken = callerProgressToken;
      this.upstreamProgressToken = upstreamProgressToken;
    }

    UpstreamCall call() {
      return call;
    }

    long callId() {
      return call.callId();
    }

    String method() {
      return call.method();
    }
  }

  private enum InternalRequest {
    INITIALIZE,
    TOOLS_LIST,
    PING
  }

  /** A server-to-client request handed to a context, waiting for its answer. */
  private record PendingServerRequest(JsonNode upstreamId, String context, String method, long generation) {}

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
  private long nextUpstreamId = 1;
  private long nextServerRequest = 1;
  private long initializeId = -1;
  private long pingId = -1;
  private int toolsListPages;

  /** Every call held, by call id. */
  private final Map<Long, Tracked> calls = new HashMap<>();
  /** Calls not yet sent, in the order they go out. */
  private LinkedHashMap<Long, Tracked> waiting = new LinkedHashMap<>();
  /** Calls sent and not answered, by upstream id: the pending map. */
  private final Map<Long, Tracked> inFlight = new HashMap<>();
  /** The session's own requests (initialize, tools/list, ping) in flight, by upstream id. */
  private final Map<Long, InternalRequest> internal = new HashMap<>();
  private final Map<String, Tracked> progressTokens = new HashMap<>();
  private final Map<String, PendingServerRequest> serverRequests = new HashMap<>();
  /** Tool name → whether its annotations say it is safe to retry (readOnlyHint or idempotentHint). */
  private final Map<String, Boolean> retryableTools = new HashMap<>();
  private final List<ActorRef<AcquireReply>> readyWaiters = new ArrayList<>();

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
            .onMessage(ConnectionLost.class, this::isCurrent, lost -> attemptFailed(describe(lost.cause()))));
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
    initializeId = sendInternal(InternalRequest.INITIALIZE, McpMethods.INITIALIZE, initializeParams());
    timers.startSingleTimer(
        TimerKey.ATTEMPT,
        new AttemptTimedOut(
            generation, "initialize timed out after " + settings.initializeTimeout().toMillis() + " ms"),
        settings.initializeTimeout());
    return initializing();
  }

  private static JsonNode initializeParams() {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("protocolVersion", ProtocolVersions.LATEST);
    ObjectNode capabilities = params.putObject("capabilities");
    capabilities.putObject("sampling");
    capabilities.putObject("elicitation");
    capabilities.putObject("roots").put("listChanged", true);
    ObjectNode clientInfo = params.putObject("clientInfo");
    clientInfo.put("name", CLIENT_NAME);
    clientInfo.put("version", CLIENT_VERSION);
    return params;
  }

  // -------------------------------------------------------------------------------------------------- initializing

  private Behavior<Command> initializing() {
    phase = Phase.INITIALIZING;
    return withCommonHandlers(
        Behaviors.receive(Command.class)
            .onMessage(Received.class, this::isCurrent, this::onReceivedWhileInitializing)
            .onMessage(AttemptTimedOut.class, this::isCurrent, timedOut -> attemptFailed(timedOut.what()))
            .onMessage(ConnectionLost.class, this::isCurrent, lost -> attemptFailed(describe(lost.cause())))
            .onMessage(
                SendFailed.class,
                failed -> isCurrent(failed) && failed.upstreamId() == initializeId,
                failed -> attemptFailed("initialize could not be sent: " + failed.reason())));
  }

  private Behavior<Command> onReceivedWhileInitializing(Received received) {
    if (!(received.message() instanceof JsonRpcResponse response) || !isInitializeResponse(response)) {
      // logging or a roots/list request may come before the initialize response: handle it as usual
      onUpstreamMessage(received);
      return Behaviors.same();
    }
    internal.remove(initializeId);
    if (response.isError()) {
      return attemptFailed("initialize failed: " + response.error().message());
    }
    String version = response.result().path("protocolVersion").asText("");
    if (!ProtocolVersions.isSupported(version)) {
      return attemptFailed("initialize answered unsupported protocol version \"" + version + "\"");
    }
    initializeResult = response.result();
    timers.cancel(TimerKey.ATTEMPT);
    transmit(new JsonRpcNotification(McpMethods.NOTIFICATION_INITIALIZED, null), 0);
    return becomeReady();
  }

  private boolean isInitializeResponse(JsonRpcResponse response) {
    Long id = upstreamIdOf(response.id());
    return id != null && id == initializeId;
  }

  private Behavior<Command> becomeReady() {
    phase = Phase.READY;
    everReady = true;
    failedAttempts = 0;
    consecutiveFailures = 0;
    reportedFailing = false;
    toolsCapability = initializeResult.path("capabilities").has("tools");
    retryableTools.clear();
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
            .onMessage(Received.class, this::isCurrent, this::onReceivedWhileReady)
            .onMessage(ConnectionLost.class, this::isCurrent, lost -> connectionLost(describe(lost.cause())))
            .onMessage(SendFailed.class, this::isCurrent, this::onSendFailed)
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
      onNotification(notification);
    }
  }

  private void onResponse(JsonRpcResponse response) {
    Long upstreamId = upstreamIdOf(response.id());
    Tracked call = upstreamId == null ? null : inFlight.remove(upstreamId);
    if (call != null) {
      consecutiveFailures = 0;
      if (response.isError() && STILL_INITIALIZING.matcher(response.error().message()).find()) {
        scheduleStillInitializingRetry(call);
      } else {
        if (!response.isError() && McpMethods.TOOLS_LIST.equals(call.method())) {
          learnTools(response.result());
        }
        finish(call, call.call().response(response), response.isError() ? "error" : null);
      }
      drainWaiting();
      reportLoad();
      return;
    }
    InternalRequest kind = upstreamId == null ? null : internal.remove(upstreamId);
    if (kind == InternalRequest.TOOLS_LIST && !response.isError()) {
      learnTools(response.result());
      String cursor = response.result().path("nextCursor").asText(null);
      if (cursor != null && toolsListPages < MAX_TOOLS_LIST_PAGES) {
        fetchTools(cursor);
      }
    } else if (kind == InternalRequest.PING) {
      pingId = -1;
      timers.cancel(TimerKey.PING_TIMEOUT);
    } else if (kind == null) {
      context.getLog().debug("{} session {}: dropping late response for id {}", server, sessionId, response.id());
    }
  }

  private void onNotification(JsonRpcNotification notification) {
    String method = notification.method();
    if (McpMethods.NOTIFICATION_PROGRESS.equals(method)) {
      routeProgress(notification);
    } else if (McpMethods.NOTIFICATION_CANCELLED.equals(method)) {
      routeServerCancellation(notification);
    } else {
      if (McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED.equals(method)) {
        retryableTools.clear();
        if (toolsCapability && phase == Phase.READY) {
          fetchTools(null);
        }
      }
      // logging, list_changed, resources/updated: every context leased on this session (the key actor knows them)
      parent.tell(new ServerKeyActor.Broadcast(sessionId, notification));
    }
  }

  /** Progress carries our upstream token: give it back to the caller with its own token. */
  private void routeProgress(JsonRpcNotification notification) {
    JsonNode params = notification.params();
    JsonNode token = params == null ? null : params.get("progressToken");
    Tracked call = token != null && token.isTextual() ? progressTokens.get(token.textValue()) : null;
    if (call == null) {
      context.getLog().debug("{} session {}: dropping progress for unknown token {}", server, sessionId, token);
      return;
    }
    ObjectNode restored = ((ObjectNode) params).deepCopy();
    restored.set("progressToken", call.callerProgressToken);
    deliver(call.call().context(), notification.withParams(restored));
  }

  /** The upstream withdrew one of its server-to-client requests: tell the context that holds it. */
  private void routeServerCancellation(JsonRpcNotification notification) {
    JsonNode requestId = notification.params() == null ? null : notification.params().get("requestId");
    if (requestId == null) {
      return;
    }
    Iterator<Map.Entry<String, PendingServerRequest>> pending = serverRequests.entrySet().iterator();
    while (pending.hasNext()) {
      Map.Entry<String, PendingServerRequest> entry = pending.next();
      if (entry.getValue().upstreamId().equals(requestId)) {
        pending.remove();
        timers.cancel(new ServerRequestTimer(entry.getKey()));
        ObjectNode params = ((ObjectNode) notification.params()).deepCopy();
        params.put("requestId", entry.getKey());
        deliver(entry.getValue().context(), notification.withParams(params));
        return;
      }
    }
  }

  private void deliver(String contextId, JsonRpcNotification notification) {
    env.guardian().tell(new SupervisorGuardian.Deliver(List.of(contextId), server, notification));
  }

  /**
   * Sampling, elicitation, roots: the context whose request the transport names, else the one context with requests
   * in flight, else the context of the oldest request in flight; none → an error upstream at once.
   */
  private void onServerRequest(JsonRpcRequest request, JsonNode relatedRequestId) {
    String owner = owningContext(relatedRequestId);
    if (owner == null) {
      transmit(
          JsonRpcResponse.failure(
              request.id(), SupervisorErrors.noClient(server, request.method(), "no request in flight")),
          0);
      return;
    }
    String localId = env.keyId() + ":" + sessionId + ":" + nextServerRequest++;
    serverRequests.put(localId, new PendingServerRequest(request.id(), owner, request.method(), generation));
    timers.startSingleTimer(
        new ServerRequestTimer(localId), new ServerRequestExpired(localId), settings.serverRequestTimeout());
    env.guardian()
        .tell(
            new SupervisorGuardian.DeliverServerRequest(
                owner, server, request.withId(TextNode.valueOf(localId)), context.getSelf()));
  }

  private String owningContext(JsonNode relatedRequestId) {
    Long related = relatedRequestId == null ? null : upstreamIdOf(relatedRequestId);
    Tracked relatedCall = related == null ? null : inFlight.get(related);
    if (relatedCall != null) {
      return relatedCall.call().context();
    }
    // the oldest call in flight: when only one context has calls in flight, that is one of its calls
    Tracked oldest = null;
    for (Tracked call : inFlight.values()) {
      if (oldest == null || call.upstreamId < oldest.upstreamId) {
        oldest = call;
      }
    }
    return oldest == null ? null : oldest.call().context();
  }

  private Behavior<Command> onServerRequestAnswer(ServerRequestAnswer answer) {
    PendingServerRequest pending = serverRequests.remove(answer.localId());
    if (pending == null) {
      return Behaviors.same(); // expired, withdrawn, or its connection is gone
    }
    timers.cancel(new ServerRequestTimer(answer.localId()));
    if (phase == Phase.READY && pending.generation() == generation) {
      transmit(answer.response().withId(pending.upstreamId()), 0);
    }
    return Behaviors.same();
  }

  private Behavior<Command> onServerRequestExpired(ServerRequestExpired expired) {
    PendingServerRequest pending = serverRequests.remove(expired.localId());
    if (pending != null && phase == Phase.READY && pending.generation() == generation) {
      transmit(
          JsonRpcResponse.failure(
              pending.upstreamId(),
              SupervisorErrors.noClient(
                  server,
                  pending.method(),
                  "no answer within " + settings.serverRequestTimeout().toMillis() + " ms")),
          0);
    }
    return Behaviors.same();
  }

  private Behavior<Command> onClientNotification(ClientNotification notification) {
    if (!McpMethods.NOTIFICATION_INITIALIZED.equals(notification.method())) { // the session sent its own
      transmit(new JsonRpcNotification(notification.method(), notification.params()), 0);
    }
    return Behaviors.same();
  }

  private Behavior<Command> onSendFailed(SendFailed failed) {
    Tracked call = inFlight.remove(failed.upstreamId());
    if (call == null) {
      internal.remove(failed.upstreamId());
      context.getLog().debug("{} session {}: send failed: {}", server, sessionId, failed.reason());
      return Behaviors.same();
    }
    countFailure();
    if (isRetryable(call) && !call.retriedAfterLoss) {
      call.retriedAfterLoss = true;
      call.state = CallState.WAITING;
      call.upstreamId = -1;
      dispatch(call);
    } else {
      answerError(call, SupervisorErrors.sessionLost(server, call.method(), "send failed: " + failed.reason()));
    }
    drainWaiting();
    reportLoad();
    return Behaviors.same();
  }

  private Behavior<Command> onPingTick() {
    if (pingId < 0 && inFlight.isEmpty()) {
      pingId = sendInternal(InternalRequest.PING, McpMethods.PING, null);
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
    List<Tracked> lost = new ArrayList<>(inFlight.values());
    lost.sort(Comparator.comparingLong(call -> call.upstreamId));
    inFlight.clear();
    LinkedHashMap<Long, Tracked> requeued = new LinkedHashMap<>();
    for (Tracked call : lost) {
      if (isRetryable(call) && !call.retriedAfterLoss) {
        call.retriedAfterLoss = true;
        call.state = CallState.WAITING;
        call.upstreamId = -1;
        requeued.put(call.callId(), call);
      } else {
        answerError(call, SupervisorErrors.sessionLost(server, call.method(), reason));
      }
    }
    requeued.putAll(waiting);
    waiting = requeued;
    dropConnection();
    parent.tell(new ServerKeyActor.SessionDown(sessionId, reason));
    return restarting();
  }

  private boolean isRetryable(Tracked call) {
    if (McpMethods.READ_ONLY.contains(call.method())) {
      return true;
    }
    if (!McpMethods.TOOLS_CALL.equals(call.method()) || call.params == null) {
      return false;
    }
    return retryableTools.getOrDefault(call.params.path("name").asText(), false);
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
    return Behaviors.receive(Command.class)
        .onMessage(Forward.class, forward -> reject(forward.call(), error))
        .onMessage(AwaitReady.class, await -> reply(await.replyTo(), AcquireReply.failed(error)))
        .onMessage(GetSnapshot.class, this::onGetSnapshot)
        .onMessage(Close.class, notUsed -> Behaviors.stopped())
        .onMessage(Connected.class, this::closeAbandoned)
        .onAnyMessage(notUsed -> Behaviors.same())
        .onSignal(PostStop.class, signal -> onStopped())
        .build();
  }

  private Behavior<Command> onClose(Close close) {
    context.getLog().debug("{} session {}: closing ({}: {})", server, sessionId, close.reason(), close.detail());
    JsonRpcError notReady =
        close.reason() == CloseReason.SHUTDOWN
            ? SupervisorErrors.shuttingDown()
            : SupervisorErrors.unavailable(server, "session " + sessionId + " closed: " + close.reason().word());
    Function<Tracked, JsonRpcError> errorFor =
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
    return Behaviors.receive(Command.class)
        .onMessage(Forward.class, forward -> reject(forward.call(), error))
        .onMessage(AwaitReady.class, await -> reply(await.replyTo(), AcquireReply.failed(error)))
        .onMessage(GetSnapshot.class, this::onGetSnapshot)
        .onMessage(ConnectionClosedByUs.class, notUsed -> Behaviors.stopped())
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
    if (calls.containsKey(call.callId())) {
      return Behaviors.same();
    }
    boolean mustWait = phase != Phase.READY || inFlight.size() >= env.server().maxInflightPerSession();
    if (mustWait && waiting.size() >= settings.stashCapacity()) {
      return reject(call, SupervisorErrors.overloaded(sessionId, server, waiting.size()));
    }
    Tracked tracked = track(call);
    timers.startSingleTimer(
        new DeadlineTimer(call.callId()), new DeadlineExceeded(call.callId()), call.deadline());
    dispatch(tracked);
    reportLoad();
    return Behaviors.same();
  }

  /** Replaces a caller's progress token with one unique on this session, so two callers' tokens never collide. */
  private Tracked track(UpstreamCall call) {
    JsonNode params = call.params();
    JsonNode callerToken = params == null ? null : params.path("_meta").get("progressToken");
    Tracked tracked;
    if (callerToken == null || !params.path("_meta").isObject()) {
      tracked = new Tracked(call, params, null, null);
    } else {
      String upstreamToken = "mcps-" + sessionId + "-" + call.callId();
      ObjectNode rewritten = ((ObjectNode) params).deepCopy();
      ((ObjectNode) rewritten.get("_meta")).put("progressToken", upstreamToken);
      tracked = new Tracked(call, rewritten, callerToken, upstreamToken);
      progressTokens.put(upstreamToken, tracked);
    }
    calls.put(call.callId(), tracked);
    return tracked;
  }

  private void dispatch(Tracked call) {
    if (phase == Phase.READY && waiting.isEmpty() && inFlight.size() < env.server().maxInflightPerSession()) {
      send(call);
    } else {
      call.state = CallState.WAITING;
      waiting.put(call.callId(), call);
    }
  }

  private void drainWaiting() {
    Iterator<Tracked> next = waiting.values().iterator();
    while (phase == Phase.READY && next.hasNext() && inFlight.size() < env.server().maxInflightPerSession()) {
      Tracked call = next.next();
      next.remove();
      send(call);
    }
  }

  private void send(Tracked call) {
    if (McpMethods.INITIALIZE.equals(call.method())) {
      // the session runs the handshake itself: a caller's initialize gets its result and is never sent again
      finish(call, call.call().response(JsonRpcResponse.success(LongNode.valueOf(0), initializeResult)), null);
      return;
    }
    long upstreamId = nextUpstreamId++;
    call.state = CallState.IN_FLIGHT;
    call.upstreamId = upstreamId;
    inFlight.put(upstreamId, call);
    transmit(new JsonRpcRequest(LongNode.valueOf(upstreamId), call.method(), call.params), upstreamId);
  }

  private long sendInternal(InternalRequest kind, String method, JsonNode params) {
    long upstreamId = nextUpstreamId++;
    internal.put(upstreamId, kind);
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
    sendInternal(InternalRequest.TOOLS_LIST, McpMethods.TOOLS_LIST, params);
  }

  private void learnTools(JsonNode toolsListResult) {
    for (JsonNode tool : toolsListResult.path("tools")) {
      JsonNode annotations = tool.path("annotations");
      boolean safe =
          annotations.path("readOnlyHint").asBoolean(false) || annotations.path("idempotentHint").asBoolean(false);
      retryableTools.put(tool.path("name").asText(), safe);
    }
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
    Tracked call = calls.get(cancel.callId());
    if (call != null) {
      withdraw(call, "cancelled by the client");
      answerError(call, SupervisorErrors.cancelled(call.method(), server));
    }
    return Behaviors.same();
  }

  private Behavior<Command> onDeadlineExceeded(DeadlineExceeded exceeded) {
    Tracked call = calls.get(exceeded.callId());
    if (call != null) {
      if (call.state == CallState.IN_FLIGHT) {
        countFailure();
      }
      withdraw(call, "timed out");
      answerError(call, SupervisorErrors.timeout(call.method(), server, call.call().deadline().toMillis()));
    }
    return Behaviors.same();
  }

  /** Takes a call back: if it was sent, the upstream is told to stop working on it. */
  private void withdraw(Tracked call, String reason) {
    if (call.state == CallState.IN_FLIGHT && inFlight.remove(call.upstreamId) != null && phase == Phase.READY) {
      ObjectNode params = JsonRpcCodec.emptyObject();
      params.put("requestId", call.upstreamId);
      params.put("reason", reason);
      transmit(new JsonRpcNotification(McpMethods.NOTIFICATION_CANCELLED, params), 0);
      drainWaiting();
    }
  }

  private void scheduleStillInitializingRetry(Tracked call) {
    call.state = CallState.RETRY_SCHEDULED;
    call.upstreamId = -1;
    Duration delay = settings.stillInitializingRetry(call.stillInitializingRetries++);
    timers.startSingleTimer(new RetryTimer(call.callId()), new RetryCall(call.callId()), delay);
  }

  private Behavior<Command> onRetryCall(RetryCall retry) {
    Tracked call = calls.get(retry.callId());
    if (call != null && call.state == CallState.RETRY_SCHEDULED) {
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
                sessionId, phase.word, 0, inFlight.size(), waiting.size(), restarts, startedAt, pid));
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
    boolean saturated = inFlight.size() + waiting.size() >= env.server().maxInflightPerSession();
    if (saturated != reportedSaturated) {
      reportedSaturated = saturated;
      parent.tell(new ServerKeyActor.SessionLoad(sessionId, saturated));
    }
  }

  // ------------------------------------------------------------------------------------------------------ answering

  /** The one place a call is answered: removes it everywhere first, so a second answer is impossible. */
  private void finish(Tracked call, JsonRpcResponse response, String errorKind) {
    if (calls.remove(call.callId()) == null) {
      return;
    }
    waiting.remove(call.callId());
    if (call.state == CallState.IN_FLIGHT) {
      inFlight.remove(call.upstreamId);
    }
    if (call.upstreamProgressToken != null) {
      progressTokens.remove(call.upstreamProgressToken);
    }
    timers.cancel(new DeadlineTimer(call.callId()));
    timers.cancel(new RetryTimer(call.callId()));
    call.call().replyTo().tell(response);
    env.observer().requestCompleted(server, call.method(), System.nanoTime() - call.startNanos, errorKind);
  }

  private void answerError(Tracked call, JsonRpcError error) {
    finish(call, call.call().errorResponse(error), SupervisorErrors.kind(error));
    reportLoad();
  }

  private void answerEverything(Function<Tracked, JsonRpcError> errorFor, JsonRpcError acquireError) {
    List<Tracked> held = new ArrayList<>(calls.values());
    held.sort(Comparator.comparingLong(Tracked::callId));
    held.forEach(call -> answerError(call, errorFor.apply(call)));
    readyWaiters.forEach(waiter -> waiter.tell(AcquireReply.failed(acquireError)));
    readyWaiters.clear();
    serverRequests.clear();
  }

  private Behavior<Command> reject(UpstreamCall call, JsonRpcError error) {
    call.reject(error, env.observer());
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
    internal.clear();
    serverRequests.keySet().forEach(localId -> timers.cancel(new ServerRequestTimer(localId)));
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

  private boolean isCurrent(Connected m) {
    return m.generation() == generation;
  }

  private boolean isCurrent(ConnectFailed m) {
    return m.generation() == generation;
  }

  private boolean isCurrent(AttemptTimedOut m) {
    return m.generation() == generation;
  }

  private boolean isCurrent(Received m) {
    return m.generation() == generation && connection != null;
  }

  private boolean isCurrent(ConnectionLost m) {
    return m.generation() == generation && m.cause().kind() != ConnectionClosed.Kind.CLOSED_BY_US;
  }

  private boolean isCurrent(SendFailed m) {
    return m.generation() == generation && connection != null;
  }

  /** Our ids are numbers; a server that echoes them back as strings is understood too. */
  private static Long upstreamIdOf(JsonNode id) {
    if (id != null && id.isIntegralNumber() && id.canConvertToLong()) {
      return id.longValue();
    }
    if (id != null && id.isTextual()) {
      try {
        return Long.valueOf(id.textValue());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }

  private static String describe(ConnectionClosed cause) {
    String kind = cause.kind().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
    return cause.detail() == null || cause.detail().isBlank() ? kind : kind + ": " + cause.detail();
  }

  private static String describe(Throwable failure) {
    Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    return cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
  }
}
