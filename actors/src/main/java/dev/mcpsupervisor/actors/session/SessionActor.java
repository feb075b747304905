package dev.mcpsupervisor.actors.session;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.base.SupervisorSettings;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.SessionSnapshot;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One upstream MCP session: the calls of its contexts — admission, the wait for a connection,
 * JSON-RPC correlation under its own upstream ids, deadlines, cancellation and retries. The
 * connection itself is an {@link UpstreamLink} child per attempt. States, each a method below:
 * {@link #starting} (the first attempt) → {@link #ready} → {@link #backoff} → {@link #relinking} →
 * {@link #ready} ...; {@link #failed} when the first attempt fails; {@link #closing} until the link
 * is gone.
 *
 * <p>A dead connection is not an actor failure: the calls ({@link SessionCalls}) survive
 * reconnects. Should the actor itself crash (a bug), PreRestart and PostStop answer everything it
 * holds, so no caller ever hangs.
 *
 * <p>The session never stops on its own: it reports to its key actor, which removes it from its
 * table first and only then sends {@link Close}, so a racing lease can never be handed a dying
 * session.
 */
public final class SessionActor {

  public interface Command {}

  /**
   * A caller's request, to be sent when the session is ready (in arrival order). {@code
   * interactive}: the key actor placed it here as a call of an interactive tool, and hears when it
   * ends ({@link InteractiveCallEnded}).
   */
  public record Forward(UpstreamCall call, boolean interactive) implements Command {
    public Forward(UpstreamCall call) {
      this(call, false);
    }
  }

  /**
   * The caller gave up: the call is answered as cancelled and {@code notifications/cancelled} goes
   * upstream.
   */
  public record Cancel(long callId) implements SessionCalls.CallCommand {}

  /**
   * A client notification to pass upstream (e.g. roots/list_changed); dropped while not ready. A
   * server-to-client request that then arrives with no call in flight goes to {@code context}.
   */
  public record ClientNotification(String context, String method, JsonNode params)
      implements Command {}

  /**
   * The context leased this session: {@code delivery} null at first (the lease alone counts when
   * deciding whose a server request is), then its listener's — its notifications, server requests
   * and answers go through it.
   */
  public record Leased(String context, ActorRef<ContextDelivery.Command> delivery)
      implements Command {}

  /** The context released its lease here. */
  public record Unleased(String context) implements Command {}

  /** Answers with the upstream's initialize result once ready (at once if ready now). */
  public record AwaitReady(ActorRef<AcquireReply> replyTo) implements Command {}

  /**
   * The supervisor is shutting down: the session goes on with the calls it holds (no new ones come)
   * and tells its key actor {@link Drained} once it holds none. Sent only by the key actor.
   */
  public enum Drain implements Command {
    INSTANCE
  }

  /** Answers everything held, closes the connection, stops. Sent only by the key actor. */
  public record Close(CloseReason reason, String detail) implements Command {}

  public record GetSnapshot(ActorRef<SessionSnapshot> replyTo) implements Command {}

  /**
   * An operator's restart: a ready session drops its connection (a stdio server's process ends) and
   * reconnects as after a transport failure; replies whether it was ready to. {@code reason}: who
   * asked and why, as the event list and the session's last loss show it.
   */
  public record Restart(String reason, ActorRef<Boolean> replyTo) implements Command {}

  /** A context's answer to a server request, through the session's message adapter. */
  record ServerRequestAnswered(ContextDelivery.ServerRequestAnswer answer) implements Command {}

  /**
   * What a session tells its key actor (through the key's message adapter: the session does not
   * know its parent's protocol).
   */
  public interface Report {}

  public record SessionReady(long sessionId) implements Report {}

  /** A ready session lost its connection and is reconnecting. */
  public record SessionDown(long sessionId, String reason) implements Report {}

  /**
   * A connect or initialize failed; {@code fatal}: the session never was ready and gives up (close
   * it).
   */
  public record AttemptFailed(long sessionId, String reason, boolean fatal) implements Report {}

  /** The session is (or stopped being) at maxInflightPerSession. */
  public record SessionLoad(long sessionId, boolean saturated) implements Report {}

  /**
   * A call the key actor placed here as interactive is answered (or was refused): the session is
   * free of it.
   */
  public record InteractiveCallEnded(long sessionId, long callId) implements Report {}

  /**
   * A call of {@code tool} sent its client a request (sampling, elicitation): the tool is
   * interactive.
   */
  public record ToolIsInteractive(String tool) implements Report {}

  /** After {@link Drain}: the session holds no call, it may be closed. */
  public record Drained(long sessionId) implements Report {}

  /** The session's requests keep failing: evict it. */
  public record SessionFailing(long sessionId, String reason) implements Report {}

  /**
   * Its upstream sent {@code notifications/<kind>/list_changed}: the key's cached lists of that
   * kind go.
   */
  public record ListChanged(String notification) implements Report {}

  // What its link reports (UpstreamLink.Report) comes from a child; never crosses a node.

  private record LinkTerminated(ActorRef<UpstreamLink.Command> link) implements Command {}

  // Messages the session sends itself.

  private enum Relink implements Command {
    INSTANCE
  }

  /**
   * An attempt under way: its link, and how far it got ("connecting", then "initializing" with a
   * pid).
   */
  private record Attempt(ActorRef<UpstreamLink.Command> link, String stage, OptionalLong pid) {
    Attempt opened(OptionalLong openedPid) {
      return new Attempt(link, "initializing", openedPid);
    }
  }

  public static Behavior<Command> create(
      long sessionId, KeyEnvironment env, ActorRef<Report> parent) {
    SupervisorSettings settings = env.settings();
    return Behaviors.<Command>supervise(
            Behaviors.withStash(
                settings.stashCapacity(),
                early ->
                    Behaviors.setup(
                        context ->
                            Behaviors.withTimers(
                                timers ->
                                    new SessionActor(sessionId, env, parent, context, timers, early)
                                        .start()))))
        .onFailure(
            Exception.class,
            SupervisorStrategy.restartWithBackoff(
                settings.restartBackoffMin(),
                settings.restartBackoffMax(),
                settings.restartBackoffRandomFactor()));
  }

  private final long sessionId;
  private final ActorRef<Report> parent;
  private final KeyEnvironment env;
  private final String server;
  private final SupervisorSettings settings;
  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final SessionCalls calls;
  private final UpstreamInbox inbox;
  private final KeepAlive keepAlive;
  private final SessionLifecycle lifecycle;

  private SessionActor(
      long sessionId,
      KeyEnvironment env,
      ActorRef<Report> parent,
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      StashBuffer<Command> early) {
    this.sessionId = sessionId;
    this.parent = parent;
    this.env = env;
    this.server = env.serverName();
    this.settings = env.settings();
    this.context = context;
    this.timers = timers;
    this.calls = new SessionCalls(sessionId, env, parent, context, timers);
    this.inbox = calls.inbox();
    this.keepAlive = new KeepAlive(calls, settings, timers);
    this.lifecycle = new SessionLifecycle(sessionId, env, parent, context, calls, keepAlive, early);
  }

  private Behavior<Command> start() {
    lifecycle.started();
    return starting(newAttempt());
  }

  private Attempt newAttempt() {
    ActorRef<UpstreamLink.Command> link =
        context.spawnAnonymous(UpstreamLink.create(env, context.getSelf()));
    context.watchWith(link, new LinkTerminated(link));
    return new Attempt(link, "connecting", OptionalLong.empty());
  }

  // -------------------------------------------------------------------------------------- starting

  /**
   * The first attempt: if it fails, the session gives up (its key actor counts it toward the
   * circuit breaker).
   */
  private Behavior<Command> starting(Attempt attempt) {
    return linking(attempt, this::starting, this::gaveUp);
  }

  /**
   * An attempt under way, the first or a later one: the link is up (→ ready), or it failed.
   *
   * @param opened the same state with the attempt's progress (connected, its pid)
   * @param failed the state a failure leads to, given why
   */
  private Behavior<Command> linking(
      Attempt attempt,
      java.util.function.Function<Attempt, Behavior<Command>> opened,
      java.util.function.Function<String, Behavior<Command>> failed) {
    return open(
        null,
        attempt.stage(),
        attempt.pid(),
        attempt.link(),
        Behaviors.receive(Command.class)
            .onMessage(
                UpstreamLink.Connected.class,
                open -> isOf(open.link(), attempt),
                open -> opened.apply(attempt.opened(open.pid())))
            .onMessage(UpstreamLink.Up.class, up -> isOf(up.link(), attempt), this::becomeReady)
            .onMessage(
                UpstreamLink.Down.class,
                down -> isOf(down.link(), attempt),
                down -> failed.apply(down.reason()))
            .onMessage(
                LinkTerminated.class,
                t -> isOf(t.link(), attempt),
                t -> failed.apply("connection ended")));
  }

  private Behavior<Command> gaveUp(String reason) {
    return failed(lifecycle.gaveUp(reason));
  }

  // ----------------------------------------------------------------------------------------- ready

  private Behavior<Command> becomeReady(UpstreamLink.Up up) {
    SessionCalls.Link link =
        new SessionCalls.Link(up.link(), up.connection(), up.initializeResult());
    lifecycle.linkUp(link);
    return lifecycle.replayEarly(ready(link));
  }

  private Behavior<Command> ready(SessionCalls.Link link) {
    return open(
        link,
        "ready",
        OptionalLong.empty(),
        link.ref(),
        Behaviors.receive(Command.class)
            .onMessage(
                UpstreamLink.Received.class,
                received -> received.link().equals(link.ref()),
                received ->
                    same(
                        () ->
                            calls.onUpstreamMessage(
                                received.message(), received.relatedRequestId(), link)))
            .onMessage(
                CallSender.SendFailed.class,
                failed -> failed.link().equals(link.ref()),
                failed -> same(() -> calls.onSendFailed(failed, link)))
            .onMessage(
                UpstreamLink.Down.class,
                down -> down.link().equals(link.ref()),
                down -> linkLost(down.reason(), link))
            .onMessage(
                LinkTerminated.class,
                t -> t.link().equals(link.ref()),
                t -> linkLost("connection ended", link))
            .onMessage(
                ClientNotification.class,
                notification -> same(() -> inbox.onClientNotification(notification, link)))
            .onMessage(Restart.class, restart -> restartedByOperator(restart, link))
            .onMessageEquals(KeepAlive.Tick.INSTANCE, () -> same(() -> keepAlive.onTick(link)))
            .onMessage(KeepAlive.TimedOut.class, keepAlive::isUnanswered, t -> pingLost(link)));
  }

  private Behavior<Command> pingLost(SessionCalls.Link link) {
    context.stop(link.ref()); // its PostStop closes the connection
    return linkLost(keepAlive.deadReason(), link);
  }

  private Behavior<Command> restartedByOperator(Restart restart, SessionCalls.Link link) {
    restart.replyTo().tell(true);
    context.stop(link.ref()); // its PostStop closes the connection
    lifecycle.restartRequested(restart.reason());
    return backoff(0);
  }

  /** The connection died under a ready session: a new link follows after a backoff. */
  private Behavior<Command> linkLost(String reason, SessionCalls.Link link) {
    lifecycle.linkLost(reason);
    return backoff(0);
  }

  // ---------------------------------------------------------------------------- backoff, relinking

  private Behavior<Command> backoff(int failedAttempts) {
    timers.startSingleTimer(
        Relink.INSTANCE,
        settings.restartBackoff(failedAttempts, ThreadLocalRandom.current().nextDouble()));
    return open(
        null,
        "restarting",
        OptionalLong.empty(),
        null,
        Behaviors.receive(Command.class)
            .onMessageEquals(Relink.INSTANCE, () -> relinking(newAttempt(), failedAttempts)));
  }

  /** A session that was ready keeps trying, with backoff, until its key actor closes it. */
  private Behavior<Command> relinking(Attempt attempt, int failedAttempts) {
    return linking(
        attempt,
        progressed -> relinking(progressed, failedAttempts),
        reason -> attemptFailed(reason, failedAttempts + 1));
  }

  private Behavior<Command> attemptFailed(String reason, int failedAttempts) {
    lifecycle.attemptFailed(reason, failedAttempts);
    return backoff(failedAttempts);
  }

  private static boolean isOf(ActorRef<UpstreamLink.Command> link, Attempt attempt) {
    return link.equals(attempt.link());
  }

  // ------------------------------------------------------------------------------- failed, closing

  /** Never became ready; waits for the key actor (which has already forgotten it) to send Close. */
  private Behavior<Command> failed(JsonRpcError error) {
    return refusingEverything(
        error,
        Behaviors.receive(Command.class).onMessage(Close.class, notUsed -> Behaviors.stopped()));
  }

  private Behavior<Command> onClose(Close close, ActorRef<UpstreamLink.Command> link) {
    JsonRpcError notReady = lifecycle.closing(close);
    timers.cancelAll();
    if (link == null) {
      return Behaviors.stopped();
    }
    link.tell(
        UpstreamLink.Close.INSTANCE); // it stops once the connection is gone (or was never opened)
    return closing(link, notReady);
  }

  private Behavior<Command> closing(ActorRef<UpstreamLink.Command> link, JsonRpcError error) {
    return refusingEverything(
        error,
        Behaviors.receive(Command.class)
            .onMessage(LinkTerminated.class, t -> t.link().equals(link), t -> Behaviors.stopped()));
  }

  /**
   * Failed and closing: every new request and acquire gets the error; the state decides what ends
   * it.
   */
  private Behavior<Command> refusingEverything(
      JsonRpcError error, BehaviorBuilder<Command> stateHandlers) {
    return stateHandlers
        .onMessage(Forward.class, forward -> same(() -> refuse(forward, error)))
        .onMessage(
            AwaitReady.class, await -> same(() -> await.replyTo().tell(AcquireReply.failed(error))))
        .onMessage(GetSnapshot.class, get -> onGetSnapshot(get, "closed", OptionalLong.empty()))
        .onMessage(Restart.class, restart -> notReady(restart))
        .onAnyMessage(notUsed -> Behaviors.same())
        .onSignal(PostStop.class, signal -> same(lifecycle::stopped))
        .build();
  }

  // --------------------------------------------------------------------------- in every open state

  /**
   * What every state but failed and closing handles alike.
   *
   * @param ready the link to send on, or null while there is none (calls wait)
   * @param link the current link child, if any (what Close must close)
   */
  private Behavior<Command> open(
      SessionCalls.Link ready,
      String stateWord,
      OptionalLong pid,
      ActorRef<UpstreamLink.Command> link,
      BehaviorBuilder<Command> stateHandlers) {
    return stateHandlers
        .onMessage(
            Forward.class,
            forward -> same(() -> calls.admit(forward.call(), forward.interactive(), ready)))
        .onMessage(
            SessionCalls.CallCommand.class,
            command -> same(() -> calls.onCallCommand(command, ready)))
        .onMessage(
            AwaitReady.class, await -> same(() -> lifecycle.awaitReady(await.replyTo(), ready)))
        .onMessage(
            GetSnapshot.class,
            get -> onGetSnapshot(get, stateWord, ready != null ? ready.pid() : pid))
        .onMessage(
            ServerRequestAnswered.class,
            answered -> same(() -> inbox.onServerRequestAnswer(answered.answer(), ready)))
        .onMessage(
            Leased.class,
            leased -> same(() -> inbox.contexts().leased(leased.context(), leased.delivery())))
        .onMessage(
            Unleased.class, unleased -> same(() -> inbox.contexts().unleased(unleased.context())))
        .onMessage(
            UpstreamLink.Received.class,
            received -> same(() -> receivedWhileLinking(received, link)))
        .onMessageEquals(Drain.INSTANCE, () -> same(calls::drain))
        .onMessage(Close.class, close -> onClose(close, link))
        .onMessage(Restart.class, restart -> notReady(restart))
        // whatever else is left is stale: events of an earlier link, ticks of a state already left
        .onAnyMessage(notUsed -> Behaviors.same())
        .onSignal(PreRestart.class, signal -> same(lifecycle::crashed))
        .onSignal(PostStop.class, signal -> same(lifecycle::stopped))
        .build();
  }

  /** Only a ready session has a connection to restart. */
  private static Behavior<Command> notReady(Restart restart) {
    restart.replyTo().tell(false);
    return Behaviors.same();
  }

  private void refuse(Forward forward, JsonRpcError error) {
    forward.call().reject(error, env.observer());
    if (forward.interactive()) {
      parent.tell(new InteractiveCallEnded(sessionId, forward.call().callId()));
    }
  }

  /** The current link's UpstreamLink.Up may still be on its way: what it sent waits for it. */
  private void receivedWhileLinking(
      UpstreamLink.Received received, ActorRef<UpstreamLink.Command> link) {
    if (received.link().equals(link)) { // else an earlier link's
      lifecycle.receivedEarly(received);
    }
  }

  private Behavior<Command> onGetSnapshot(GetSnapshot get, String stateWord, OptionalLong pid) {
    get.replyTo().tell(lifecycle.snapshot(stateWord, pid));
    return Behaviors.same();
  }

  /** For handlers that only act: the state stays as it is. */
  private static Behavior<Command> same(Runnable action) {
    action.run();
    return Behaviors.same();
  }
}
