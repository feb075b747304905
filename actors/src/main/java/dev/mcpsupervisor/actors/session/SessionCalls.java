package dev.mcpsupervisor.actors.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.base.SupervisorSettings;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.UpstreamDiagnostics;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.upstream.BadAnswers;
import dev.mcpsupervisor.upstream.UpstreamConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The calls of one {@link SessionActor}, run on its thread: admission (bounded), the order they go
 * out in, JSON-RPC correlation under the session's own upstream ids, deadlines, cancellation, the
 * two retry policies (once after a lost connection for safe calls; with backoff for "still
 * initializing"), and where the upstream's notifications and requests go. The actor decides the
 * state (is there a link to send on?) and passes it in; this class keeps no state of the
 * connection, only of the calls, which survive reconnects.
 */
final class SessionCalls {

  /**
   * The link the session is ready on: where calls are sent, and what the upstream said at
   * initialize.
   */
  record Link(
      ActorRef<UpstreamLink.Command> ref,
      UpstreamConnection connection,
      JsonNode initializeResult) {
    boolean hasTools() {
      return initializeResult.path("capabilities").has("tools");
    }

    OptionalLong pid() {
      return connection.pid();
    }
  }

  /** Messages about one call or server request; timers and the caller's cancel. */
  interface CallCommand extends SessionActor.Command {}

  private final long sessionId;
  private final KeyEnvironment env;
  private final String server;
  private final SupervisorSettings settings;
  private final ActorRef<SessionActor.Report> parent;
  private final ActorContext<SessionActor.Command> context;
  private final CallTimers timers;
  private final CallSender sender;

  /** Every call held, by call id: waiting, in flight, or waiting for a retry. */
  private final Map<Long, TrackedCall> held = new HashMap<>();

  private final WaitingCalls waiting = new WaitingCalls();
  private final PendingRequests pending = new PendingRequests();
  private final ProgressTokens progressTokens;
  private final UpstreamInbox inbox;
  private final RetryPolicy retryPolicy = new RetryPolicy();
  private final SessionTools tools;
  private final SessionHealth health;

  /**
   * Set by {@link #drain()} at shutdown, never unset: the key actor then hears {@link
   * SessionActor.Drained} once no call is held. The calls' own state, not the connection's, so it
   * holds across every state of the session.
   */
  private boolean draining;

  SessionCalls(
      long sessionId,
      KeyEnvironment env,
      ActorRef<SessionActor.Report> parent,
      ActorContext<SessionActor.Command> context,
      TimerScheduler<SessionActor.Command> timers) {
    this.sessionId = sessionId;
    this.env = env;
    this.server = env.serverName();
    this.settings = env.settings();
    this.parent = parent;
    this.context = context;
    this.timers = new CallTimers(timers);
    this.sender = new CallSender(context.getSelf());
    this.progressTokens = new ProgressTokens(sessionId);
    ServerRequests serverRequests =
        new ServerRequests(
            server,
            env.keyId() + ":" + sessionId + ":",
            settings.stashCapacity(),
            settings.serverRequestTimeout(),
            timers,
            context.messageAdapter(
                ContextDelivery.ServerRequestAnswer.class,
                SessionActor.ServerRequestAnswered::new));
    this.inbox =
        new UpstreamInbox(
            server,
            new LeasedContexts<>(),
            serverRequests,
            progressTokens,
            pending,
            parent,
            env.server().roots(),
            sender::message,
            this::listChanged);
    this.health = new SessionHealth(settings.evictAfterConsecutiveFailures());
    this.tools =
        new SessionTools(
            retryPolicy,
            env.server().toolFilter(),
            (link, params) ->
                sendInternal(
                    link, PendingRequests.Internal.TOOLS_LIST, McpMethods.TOOLS_LIST, params));
  }

  /** What the upstream sends besides answers, and what contexts send back to it. */
  UpstreamInbox inbox() {
    return inbox;
  }

  int inFlight() {
    return pending.callCount();
  }

  int waiting() {
    return waiting.size();
  }

  /**
   * Shutting down: the calls held go on (waiting ones still go out when the session is ready); the
   * key actor hears {@link SessionActor.Drained} once none is left, now if none is.
   */
  void drain() {
    draining = true;
    reportIfDrained();
  }

  private void reportIfDrained() {
    if (draining && held.isEmpty()) {
      parent.tell(new SessionActor.Drained(sessionId));
    }
  }

  // ------------------------------------------------------------------------------------- admission

  /**
   * Takes a call in; it goes out at once when {@code ready} has room, else waits. Calls not in
   * flight (waiting, or held for a "still initializing" retry) are bounded by {@code
   * stashCapacity}: while that many are held, a new call is answered "overloaded". So a session
   * holds at most {@code stashCapacity + maxInflightPerSession} calls.
   */
  void admit(UpstreamCall call, boolean interactive, Link ready) {
    if (held.containsKey(call.callId())) {
      return;
    }
    int notInFlight = held.size() - pending.callCount();
    if (notInFlight >= settings.stashCapacity()) {
      call.reject(SupervisorErrors.overloaded(sessionId, server, notInFlight), env.observer());
      if (interactive) {
        parent.tell(new SessionActor.InteractiveCallEnded(sessionId, call.callId()));
      }
      return;
    }
    TrackedCall tracked =
        progressTokens.track(
            call, env.telemetry().client(call.method(), call.params(), env.networkTransport()));
    tracked.interactive = interactive;
    held.put(call.callId(), tracked);
    timers.startDeadline(call.callId(), call.deadline());
    dispatch(tracked, ready);
    reportLoad();
  }

  private boolean hasRoomInFlight() {
    return pending.callCount() < env.server().maxInflightPerSession();
  }

  private void dispatch(TrackedCall call, Link ready) {
    if (ready != null && waiting.isEmpty() && hasRoomInFlight()) {
      send(call, ready);
    } else {
      waiting.add(call);
    }
  }

  private void drainWaiting(Link ready) {
    while (ready != null && !waiting.isEmpty() && hasRoomInFlight()) {
      send(waiting.poll(), ready);
    }
  }

  private void send(TrackedCall call, Link link) {
    if (McpMethods.INITIALIZE.equals(call.method())) {
      // the link ran the handshake: a caller's initialize gets its result and is never sent again
      finish(
          call,
          call.call()
              .response(JsonRpcResponse.success(LongNode.valueOf(0), link.initializeResult())),
          null);
      return;
    }
    call.span.protocolVersion(link.initializeResult().path("protocolVersion").asText(null));
    sender.request(link, pending.sendCall(call), call.method(), call.params);
  }

  private long sendInternal(
      Link link, PendingRequests.Internal kind, String method, JsonNode params) {
    return sender.request(link, pending.sendInternal(kind), method, params);
  }

  // --------------------------------------------------------------------------------- link up, lost

  void linkUp(Link link) {
    health.reconnected();
    tools.refetch(link);
    drainWaiting(link);
    reportLoad();
  }

  /**
   * The connection died: safe calls in flight go first in line for the next one; the others are
   * answered.
   */
  void linkLost(String reason) {
    List<TrackedCall> requeued = new ArrayList<>();
    UpstreamDiagnostics.Incident loss = UpstreamDiagnostics.incident(server, reason);
    for (TrackedCall call : pending.takeCallsInSendOrder()) {
      call.span.event("session_lost", UpstreamDiagnostics.redact(reason));
      if (call.retryAfterLoss(retryPolicy.isSafeToRetry(call))) {
        call.span.event("retry", "on the next session");
        requeued.add(call);
      } else {
        answerError(call, SupervisorErrors.sessionLost(loss, call.method()));
      }
    }
    waiting.putFirst(requeued);
    pending.clearInternal();
    inbox.forgetServerRequests();
  }

  /**
   * Sends a ping when nothing else is in flight; answers its upstream id, or -1 when none was sent.
   */
  long pingIfIdle(Link link) {
    if (pending.hasInternal(PendingRequests.Internal.PING) || !pending.hasNoCalls()) {
      return -1;
    }
    return sendInternal(link, PendingRequests.Internal.PING, McpMethods.PING, null);
  }

  boolean pingStillPending(long upstreamId) {
    return pending.isInternal(upstreamId, PendingRequests.Internal.PING);
  }

  /**
   * A list of the upstream changed: the key's cached lists of that kind go (told before any context
   * hears of it, so a client that lists again in reply never gets the old list); for tools, what
   * the retry policy knew of them is refetched.
   */
  private void listChanged(String notification, Link ready) {
    parent.tell(new SessionActor.ListChanged(notification));
    if (McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED.equals(notification)) {
      tools.refetch(ready);
    }
  }

  // ---------------------------------------------------------------------- timers, cancel, failures

  void onCallCommand(SessionActor.Command command, Link ready) {
    if (command instanceof SessionActor.Cancel cancel) {
      TrackedCall call = held.get(cancel.callId());
      if (call != null) {
        withdraw(call, "cancelled by the client", ready);
        answerError(call, SupervisorErrors.cancelled(call.method(), server));
      }
    } else if (command instanceof CallTimers.DeadlineExceeded exceeded) {
      TrackedCall call = held.get(exceeded.callId());
      if (call != null) {
        if (call.state == TrackedCall.State.IN_FLIGHT) {
          countFailure();
        }
        withdraw(call, "timed out", ready);
        answerError(
            call,
            SupervisorErrors.timeout(call.method(), server, call.call().deadline().toMillis()));
      }
    } else if (command instanceof CallTimers.RetryCall retry) {
      TrackedCall call = held.get(retry.callId());
      if (call != null && call.state == TrackedCall.State.RETRY_SCHEDULED) {
        dispatch(call, ready);
      }
    } else if (command instanceof ServerRequests.Expired expired) {
      inbox.onServerRequestExpired(expired, ready);
    }
  }

  /** Takes a call back: if it was sent, the upstream is told to stop working on it. */
  private void withdraw(TrackedCall call, String reason, Link ready) {
    if (call.state == TrackedCall.State.IN_FLIGHT
        && pending.removeCall(call.upstreamId) != null
        && ready != null) {
      sender.cancelled(ready, call.upstreamId, reason);
      drainWaiting(ready);
    }
  }

  void onSendFailed(CallSender.SendFailed failed, Link link) {
    TrackedCall call = pending.removeCall(failed.upstreamId());
    if (call == null) {
      pending.removeInternal(failed.upstreamId());
      context.getLog().debug("{} session {}: send failed: {}", server, sessionId, failed.reason());
      return;
    }
    countFailure();
    call.span.event("send_failed", failed.reason());
    if (call.retryAfterLoss(retryPolicy.isSafeToRetry(call))) {
      call.span.event("retry", "once more");
      dispatch(call, link);
    } else {
      answerError(
          call,
          SupervisorErrors.sessionLost(server, call.method(), "send failed: " + failed.reason()));
    }
    drainWaiting(link);
    reportLoad();
  }

  private void countFailure() {
    if (health.failed()) {
      parent.tell(
          new SessionActor.SessionFailing(
              sessionId, health.consecutiveFailures() + " consecutive request failures"));
    }
  }

  /**
   * Tells the key actor when the session starts or stops being full, so it opens another session
   * only then.
   */
  private void reportLoad() {
    boolean saturated = held.size() >= env.server().maxInflightPerSession();
    if (health.saturationChanged(saturated)) {
      parent.tell(new SessionActor.SessionLoad(sessionId, saturated));
    }
  }

  // ----------------------------------------------------------------------------- from the upstream

  /**
   * A message the upstream sent; {@code ready} is null while the link is still in its handshake.
   */
  void onUpstreamMessage(JsonRpcMessage message, JsonNode relatedRequestId, Link ready) {
    if (message instanceof JsonRpcResponse response) {
      onResponse(response, ready);
    } else if (message instanceof JsonRpcRequest request && ready != null) {
      inbox.onServerRequest(request, relatedRequestId, ready);
    } else if (message instanceof JsonRpcNotification notification) {
      inbox.onNotification(notification, relatedRequestId, ready);
    }
  }

  private void onResponse(JsonRpcResponse response, Link ready) {
    Long upstreamId = PendingRequests.idOf(response.id());
    TrackedCall call = pending.removeCall(upstreamId);
    if (call != null) {
      health.answered();
      if (RetryPolicy.saysStillInitializing(response)) {
        call.span.event("retry", "the server is still initializing");
        Duration delay = settings.stillInitializingRetry(call.scheduleStillInitializingRetry());
        timers.scheduleRetry(call.callId(), delay);
      } else if (BadAnswers.problemOf(response) != null) {
        answerError(
            call,
            SupervisorErrors.badAnswer(server, call.method(), BadAnswers.problemOf(response)));
      } else {
        JsonRpcResponse answer =
            McpMethods.TOOLS_LIST.equals(call.method()) ? tools.callerList(response) : response;
        finish(call, call.call().response(answer), response.isError() ? "error" : null);
      }
      drainWaiting(ready);
      reportLoad();
      return;
    }
    PendingRequests.Internal kind = pending.removeInternal(upstreamId);
    if (kind == PendingRequests.Internal.TOOLS_LIST) {
      tools.pageFetched(response, ready);
    } else if (kind == null) { // a ping's answer needs nothing more: its timeout finds it gone
      context
          .getLog()
          .debug(
              "{} session {}: dropping late response for id {}", server, sessionId, response.id());
    }
  }

  // ------------------------------------------------------------------------------------- answering

  /**
   * The one place a call is answered: removes it everywhere first, so a second answer is
   * impossible.
   */
  private void finish(TrackedCall call, JsonRpcResponse response, String errorKind) {
    if (held.remove(call.callId()) == null) {
      return;
    }
    waiting.remove(call.callId());
    if (call.state == TrackedCall.State.IN_FLIGHT) {
      pending.removeCall(call.upstreamId);
      call.span.requestId(LongNode.valueOf(call.upstreamId));
    }
    call.span.end(response);
    progressTokens.forget(call);
    timers.cancel(call.callId());
    // recorded before the answer leaves, so a caller that reads the meters after it sees it
    env.observer()
        .requestCompleted(server, call.method(), System.nanoTime() - call.startNanos, errorKind);
    call.call().answer(response, inbox.deliveryFor(call));
    if (call.interactive) {
      parent.tell(new SessionActor.InteractiveCallEnded(sessionId, call.callId()));
    }
    reportIfDrained();
  }

  private void answerError(TrackedCall call, JsonRpcError error) {
    finish(call, call.call().errorResponse(error), SupervisorErrors.kind(error));
    reportLoad();
  }

  /** Every call held, in arrival order, gets the error; server requests are forgotten. */
  void answerEverything(Function<TrackedCall, JsonRpcError> errorFor) {
    List<TrackedCall> all = new ArrayList<>(held.values());
    all.sort(Comparator.comparingLong(TrackedCall::callId));
    all.forEach(call -> answerError(call, errorFor.apply(call)));
    inbox.forgetServerRequests();
  }
}
