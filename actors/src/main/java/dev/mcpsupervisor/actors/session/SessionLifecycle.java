package dev.mcpsupervisor.actors.session;

import dev.mcpsupervisor.actors.base.SupervisionEvent;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.SessionSnapshot;
import dev.mcpsupervisor.protocol.UpstreamDiagnostics;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.upstream.TokenExchangeException;
import java.time.Instant;
import java.util.OptionalLong;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;

/**
 * What one session does as its connection comes and goes, on the session actor's thread: what it
 * tells its key actor, how it answers the calls and acquirers it holds, what a link sends before
 * the session knows it is up, and what its snapshot shows. The {@link SessionActor} keeps the
 * states and chooses the next one.
 */
final class SessionLifecycle {

  private final long sessionId;
  private final KeyEnvironment env;
  private final String server;
  private final ActorRef<SessionActor.Report> parent;
  private final ActorContext<SessionActor.Command> context;
  private final SessionCalls calls;
  private final KeepAlive keepAlive;
  private final ReadyWaiters readyWaiters;

  /**
   * Upstream messages of a link whose UpstreamLink.Up has not arrived yet (only ever a few, and
   * only then).
   */
  private final StashBuffer<SessionActor.Command> early;

  private final Instant startedAt = Instant.now();
  private int restarts;
  private String lastLoss = "";

  /** Since when the current link is up; null while there is none. */
  private Instant connectedAt;

  SessionLifecycle(
      long sessionId,
      KeyEnvironment env,
      ActorRef<SessionActor.Report> parent,
      ActorContext<SessionActor.Command> context,
      SessionCalls calls,
      KeepAlive keepAlive,
      StashBuffer<SessionActor.Command> early) {
    this.sessionId = sessionId;
    this.env = env;
    this.server = env.serverName();
    this.parent = parent;
    this.context = context;
    this.calls = calls;
    this.keepAlive = keepAlive;
    this.early = early;
    this.readyWaiters = new ReadyWaiters(env.settings().stashCapacity());
  }

  /** After a crash-restart the key actor may still believe the old instance's state: correct it. */
  void started() {
    parent.tell(new SessionActor.SessionLoad(sessionId, false));
  }

  void linkUp(SessionCalls.Link link) {
    connectedAt = Instant.now();
    String pid = link.pid().isPresent() ? "pid " + link.pid().getAsLong() : "";
    if (restarts == 0) {
      env.supervision(SupervisionEvent.Kind.READY, sessionId, pid);
    } else {
      env.supervision(
          SupervisionEvent.Kind.RESTARTED,
          sessionId,
          "restart " + restarts + (pid.isEmpty() ? "" : ", " + pid));
    }
    parent.tell(new SessionActor.SessionReady(sessionId));
    readyWaiters.ready(link.initializeResult());
    calls.linkUp(link);
    keepAlive.start();
  }

  /**
   * What the upstream sends on a link the session does not know is up yet waits, in order, until it
   * is; bounded, since nothing may grow with what an upstream sends.
   */
  void receivedEarly(UpstreamLink.Received received) {
    if (early.isFull()) {
      context
          .getLog()
          .warn(
              "{} session {}: dropping an upstream message sent before the link was up",
              server,
              sessionId);
    } else {
      early.stash(received);
    }
  }

  /** {@code ready}, with what the link sent before it was known to be up processed first. */
  Behavior<SessionActor.Command> replayEarly(Behavior<SessionActor.Command> ready) {
    return early.unstashAll(ready);
  }

  /**
   * The connection died under a ready session: the safe calls in flight wait for the next
   * connection (first, in their original order), the others are answered "session lost".
   */
  void linkLost(String reason) {
    lost(SupervisionEvent.Kind.LOST, reason, UpstreamDiagnostics.headline(reason));
  }

  /**
   * An operator's restart: as a lost connection, its reason (the gateway's own words) shown whole.
   */
  void restartRequested(String reason) {
    lost(SupervisionEvent.Kind.RESTART_REQUESTED, reason, reason);
  }

  /** {@code shown}: what the page and the snapshot may say of {@code reason}. */
  private void lost(SupervisionEvent.Kind kind, String reason, String shown) {
    context
        .getLog()
        .info("{} session {}: connection lost ({}), restarting", server, sessionId, reason);
    lastLoss = shown;
    env.supervision(kind, sessionId, shown);
    restarts++;
    connectedAt = null;
    keepAlive.stop();
    calls.linkLost(reason);
    parent.tell(new SessionActor.SessionDown(sessionId, reason));
  }

  /**
   * The first attempt failed: the session gives up (its key actor counts it toward the circuit
   * breaker), everything it holds is answered; returns the error for what comes later.
   */
  JsonRpcError gaveUp(String reason) {
    early.clear(); // what the failed link sent early belongs to no connection now
    context.getLog().info("{} session {}: attempt 1 failed: {}", server, sessionId, reason);
    // the page names the same ref as the callers' error: the log has the whole reason under it
    UpstreamDiagnostics.Incident incident = UpstreamDiagnostics.incident(server, reason);
    JsonRpcError error =
        TokenExchangeException.describes(reason)
            ? SupervisorErrors.tokenExchangeFailed(incident)
            : SupervisorErrors.unavailable(incident);
    // told before the key actor hears it: the circuit it may open comes after
    env.supervision(
        SupervisionEvent.Kind.ATTEMPT_FAILED,
        sessionId,
        "attempt 1: " + UpstreamDiagnostics.headline(reason) + " (ref " + incident.told() + ")");
    parent.tell(new SessionActor.AttemptFailed(sessionId, reason, true));
    calls.answerEverything(call -> error);
    readyWaiters.failed(error);
    return error;
  }

  /** A later attempt failed: the session tries again after a backoff. */
  void attemptFailed(String reason, int failedAttempts) {
    early.clear();
    context
        .getLog()
        .info("{} session {}: attempt {} failed: {}", server, sessionId, failedAttempts, reason);
    env.supervision(
        SupervisionEvent.Kind.ATTEMPT_FAILED,
        sessionId,
        "reconnect attempt " + failedAttempts + ": " + UpstreamDiagnostics.headline(reason));
    parent.tell(new SessionActor.AttemptFailed(sessionId, reason, false));
  }

  /**
   * Answers everything held for the reason of the close; returns what acquirers get from now on.
   */
  JsonRpcError closing(SessionActor.Close close) {
    context
        .getLog()
        .debug(
            "{} session {}: closing ({}: {})", server, sessionId, close.reason(), close.detail());
    connectedAt = null;
    JsonRpcError notReady = close.reason().acquireError(server, sessionId);
    calls.answerEverything(close.reason().callErrors(server, close.detail()));
    readyWaiters.failed(notReady);
    return notReady;
  }

  /** Answers at once when {@code ready} is not null, else waits (bounded) until it is. */
  void awaitReady(ActorRef<AcquireReply> replyTo, SessionCalls.Link ready) {
    readyWaiters.await(
        replyTo,
        ready == null ? null : ready.initializeResult(),
        waiting -> SupervisorErrors.overloaded(sessionId, server, waiting));
  }

  SessionSnapshot snapshot(String stateWord, OptionalLong pid) {
    return new SessionSnapshot(
        sessionId,
        stateWord,
        0,
        calls.inFlight(),
        calls.waiting(),
        calls.inbox().awaitingAnswers(),
        restarts,
        lastLoss,
        startedAt,
        connectedAt,
        pid);
  }

  /**
   * An unexpected exception: the actor restarts with a fresh state (its link child stops), so
   * answer what it holds.
   */
  void crashed() {
    context
        .getLog()
        .warn("{} session {}: actor failed, restarting; answering what it held", server, sessionId);
    calls.answerEverything(
        call -> SupervisorErrors.sessionLost(server, call.method(), "session actor failed"));
    readyWaiters.failed(
        SupervisorErrors.unavailableBecause(server, "session " + sessionId + " failed"));
    env.supervision(SupervisionEvent.Kind.LOST, sessionId, "session actor failed");
    parent.tell(new SessionActor.SessionDown(sessionId, "session actor failed"));
  }

  /**
   * Stopped (by its key actor, or the system is terminating): nothing may stay unanswered; the link
   * child stops too.
   */
  void stopped() {
    calls.answerEverything(call -> SupervisorErrors.shuttingDown());
    readyWaiters.failed(SupervisorErrors.shuttingDown());
  }
}
