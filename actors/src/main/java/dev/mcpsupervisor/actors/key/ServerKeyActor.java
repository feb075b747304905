package dev.mcpsupervisor.actors.key;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.KeySnapshot;
import dev.mcpsupervisor.actors.delivery.CallActor;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.actors.session.AcquireReply;
import dev.mcpsupervisor.actors.session.CloseReason;
import dev.mcpsupervisor.actors.session.KeyEnvironment;
import dev.mcpsupervisor.actors.session.SessionActor;
import dev.mcpsupervisor.actors.telemetry.McpSpan;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.japi.function.Function;

/**
 * One actor per server key: its sessions (children), the leases of contexts on them, their
 * assignment by isolation policy, idle eviction, the key's circuit breaker (all in {@link
 * KeySessions}), and its session ids (monotonic, never recycled: the router hands every incarnation
 * a first id beyond every id used before).
 *
 * <p>Every message from the router, and every direct call of a caller who found this actor in the
 * {@link LeaseDirectory}, is counted through its {@link KeyGate}. With no session, no lease and a
 * closed circuit without failures (recent failures and an open or half-open circuit are remembered
 * until forgotten after a quiet cooldown), the actor tells the router it is idle together with that
 * count; the router stops it only if it can close the gate at that count (nothing sent since), and
 * a shutdown closes the gate and stops once every message that passed it was processed, so no
 * message is ever lost to a stopping actor.
 */
public final class ServerKeyActor {

  public interface Command {}

  /**
   * What the router (and a caller who found it in the {@link LeaseDirectory}) sends: counted
   * through the key's {@link KeyGate} on the way in and here on processing, in every state.
   */
  interface Counted extends Command {}

  // From the router (counted).

  /**
   * Takes a lease for the context (a session is started if needed); the session answers when ready.
   */
  public record Acquire(
      String context, ActorRef<ContextDelivery.Command> delivery, ActorRef<AcquireReply> replyTo)
      implements Counted {}

  /**
   * A request for the context's session (taking a lease first if the context has none); {@code
   * callActor}, or null: the call's own actor, spawned here.
   */
  public record Request(UpstreamCall call, CallActor callActor) implements Counted {}

  /**
   * A leased call from its caller, who found the key actor of its context's lease in {@link
   * LeaseDirectory}: served as the router's {@link Request} would be while that lease holds, else
   * sent back to the router.
   */
  public record Direct(UpstreamCall call) implements Counted {}

  /** A call's own actor ended (watched only while this actor stops). */
  private enum CallEnded implements Command {
    INSTANCE
  }

  /** The names of the calls' own actors begin so: apart from the sessions. */
  private static final String CALL_ACTOR = "call-";

  public record Cancel(String context, long callId) implements Counted {}

  public record Notify(String context, String method, JsonNode params) implements Counted {}

  /**
   * The context got a listener: its session sends the context's messages to this delivery actor
   * from now on.
   */
  public record DeliverTo(String context, ActorRef<ContextDelivery.Command> delivery)
      implements Counted {}

  /** Ends the context's lease. Idempotent. */
  public record Release(String context) implements Counted {}

  public record GetSnapshot(ActorRef<KeySnapshot> replyTo) implements Counted {}

  /** {@link SessionActor.Restart} for one of its sessions; false when it has no such session. */
  public record RestartSession(long sessionId, String reason, ActorRef<Boolean> replyTo)
      implements Counted {}

  /** Closes every session, then stops. */
  public enum Shutdown implements Counted {
    INSTANCE
  }

  // From the sessions.

  /** What a session reports ({@link SessionActor.Report}), through a message adapter. */
  private record FromSession(SessionActor.Report report) implements Command {}

  // Its own: a watch and timers (KeySessions sets them).

  record SessionTerminated(long sessionId) implements Command {}

  record IdleTimeout(long sessionId) implements Command {}

  enum CooldownElapsed implements Command {
    INSTANCE
  }

  /** The drain at shutdown took its {@code drainTimeout}: the sessions close now. */
  private enum DrainElapsed implements Command {
    INSTANCE
  }

  /** An interactive call waited for a session until its deadline. */
  private record InteractiveWaitElapsed(long callId) implements Command {}

  private record InteractiveWaitTimer(long callId) {}

  /**
   * @param router the router it reports to (idle, session ids reserved)
   * @param incarnation distinguishes this actor from earlier and later ones of the same key
   * @param firstSessionId beyond every session id any earlier incarnation of any key used
   * @param gate what the router and the callers who found it in the lease directory count their
   *     messages through
   */
  static Behavior<Command> create(
      KeyEnvironment env,
      ActorRef<KeyRouter.Command> router,
      long incarnation,
      long firstSessionId,
      KeyGate gate) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers ->
                    new ServerKeyActor(
                            env, router, incarnation, firstSessionId, gate, context, timers)
                        .active()));
  }

  private final KeyEnvironment env;
  private final ActorRef<KeyRouter.Command> router;
  private final String server;
  private final long incarnation;
  private final ActorContext<Command> context;
  private final CircuitBreaker circuit;
  private final KeySessions sessions;
  private final LeaseTable<ActorRef<SessionActor.Command>, ActorRef<ContextDelivery.Command>> table;
  private final ListRequests lists;
  private final SubscriptionRequests subscriptions;
  private final TimerScheduler<Command> timers;

  /** Where the calls of interactive tools run, and those waiting for a session. */
  private final InteractiveCalls<UpstreamCall> interactive;

  /** The router's and the callers' messages, counted for the passivation handshake. */
  private final KeyGate gate;

  private ServerKeyActor(
      KeyEnvironment env,
      ActorRef<KeyRouter.Command> router,
      long incarnation,
      long firstSessionId,
      KeyGate gate,
      ActorContext<Command> context,
      TimerScheduler<Command> timers) {
    this.env = env;
    this.gate = gate;
    this.router = router;
    this.server = env.serverName();
    this.incarnation = incarnation;
    this.context = context;
    this.timers = timers;
    this.interactive = new InteractiveCalls<>(env.server().interactiveTools());
    this.circuit = new CircuitBreaker(server, env.settings().circuitMaxFailures());
    this.sessions =
        new KeySessions(
            env,
            router,
            firstSessionId,
            context,
            timers,
            circuit,
            context.messageAdapter(SessionActor.Report.class, FromSession::new),
            this::sessionGone);
    this.table = sessions.table();
    this.lists = new ListRequests(env, context, timers);
    this.subscriptions = new SubscriptionRequests(env, context, sessions::ref);
  }

  // ---------------------------------------------------------------------------------------- active

  private Behavior<Command> active() {
    return withSessionsKept(
        Behaviors.receive(Command.class)
            .onMessage(Acquire.class, fromRouter(this::onAcquire))
            .onMessage(Request.class, fromRouter(this::onRequest))
            .onMessage(Direct.class, fromRouter(this::onDirect))
            .onMessage(Shutdown.class, fromRouter(notUsed -> onShutdown())));
  }

  /** What active and draining do alike: the sessions' calls, leases, reports and timers go on. */
  private Behavior<Command> withSessionsKept(BehaviorBuilder<Command> builder) {
    return builder
        .onMessage(Cancel.class, fromRouter(this::onCancel))
        .onMessage(Notify.class, fromRouter(this::onNotify))
        .onMessage(
            DeliverTo.class,
            fromRouter(
                deliverTo ->
                    same(() -> sessions.deliverTo(deliverTo.context(), deliverTo.delivery()))))
        .onMessage(Release.class, fromRouter(this::onRelease))
        .onMessage(GetSnapshot.class, fromRouter(this::onGetSnapshot))
        .onMessage(RestartSession.class, fromRouter(this::onRestartSession))
        .onMessage(FromSession.class, from -> onSessionReport(from.report()))
        .onMessage(ListRequests.Event.class, event -> same(() -> lists.on(event)))
        .onMessage(SubscriptionRequests.Event.class, event -> same(() -> subscriptions.on(event)))
        .onMessage(
            IdleTimeout.class, timeout -> same(() -> sessions.idleTimeout(timeout.sessionId())))
        .onMessage(CooldownElapsed.class, notUsed -> onCooldownElapsed())
        .onMessage(InteractiveWaitElapsed.class, this::onInteractiveWaitElapsed)
        .onMessage(SessionTerminated.class, this::onSessionTerminated)
        .build();
  }

  /**
   * Counts a message that passed the gate (the router's or a caller's), and tells the router when
   * it leaves this actor idle.
   */
  private <M> Function<M, Behavior<Command>> fromRouter(Function<M, Behavior<Command>> handler) {
    return message -> {
      gate.processed();
      Behavior<Command> next = handler.apply(message);
      reportIfIdle();
      return next;
    };
  }

  private Behavior<Command> onRestartSession(RestartSession restart) {
    ActorRef<SessionActor.Command> session = sessions.ref(restart.sessionId());
    if (session == null) {
      restart.replyTo().tell(false);
    } else {
      session.tell(new SessionActor.Restart(restart.reason(), restart.replyTo()));
    }
    return Behaviors.same();
  }

  private Behavior<Command> onAcquire(Acquire acquire) {
    var session = sessions.leaseFor(acquire.context(), acquire.delivery());
    if (session == null) {
      acquire.replyTo().tell(AcquireReply.failed(sessions.unavailable()));
    } else {
      session.ref.tell(new SessionActor.AwaitReady(acquire.replyTo()));
    }
    return Behaviors.same();
  }

  /**
   * A caller's leased call is served like the router's while its context's lease holds here: the
   * router indexed it, and checks nothing this actor does not (the server's config is this key's
   * until a reconfiguration retires it). With no lease (released, or its session gone) it goes
   * through the router, which indexes the lease again.
   */
  private Behavior<Command> onDirect(Direct direct) {
    UpstreamCall call = direct.call();
    if (table.sessionOf(call.context()) == null) {
      sendBack(call);
      return Behaviors.same();
    }
    JsonRpcError refused = env.server().toolFilter().refusal(call.method(), call.params());
    if (refused != null) {
      call.reject(refused, env.observer());
      return Behaviors.same();
    }
    return onRequest(new Request(call, null));
  }

  /** A caller's call this actor does not serve goes the router's way (its delivery set there). */
  private Behavior<Command> sendBack(UpstreamCall call) {
    router.tell(new KeyRouter.Request(call.withDelivery(null)));
    return Behaviors.same();
  }

  /** A list may be answered from the cache, or wait for one fetch shared with other callers. */
  private Behavior<Command> onRequest(Request request) {
    UpstreamCall call = request.call();
    if (request.callActor() != null) {
      call =
          request
              .callActor()
              .answeredBy(
                  context.spawn(request.callActor().behavior(), CALL_ACTOR + call.callId()), call);
    }
    if (ResourceSubscriptions.handles(call.method())) {
      subscription(call);
    } else if (!lists.serve(call, this::forward)) {
      forward(call);
    }
    return Behaviors.same();
  }

  /** Resource subscriptions are refcounted per session: the upstream hears the first and last. */
  private void subscription(UpstreamCall call) {
    if (!McpMethods.RESOURCES_SUBSCRIBE.equals(call.method())) {
      subscriptions.serve(call, -1);
      return;
    }
    var session = sessions.leaseFor(call.context(), call.delivery());
    if (session == null) {
      refuseUnavailable(call);
    } else {
      subscriptions.serve(call, session.id);
    }
  }

  private void forward(UpstreamCall call) {
    if (env.server().isolation() == Isolation.SHARED
        && interactive.isInteractive(call.method(), call.params())) {
      forwardInteractive(call);
      return;
    }
    var session =
        call.leaseless()
            ? sessions.sessionFor(call)
            : sessions.leaseFor(call.context(), call.delivery());
    if (session == null) {
      refuseUnavailable(call);
    } else {
      session.ref.tell(new SessionActor.Forward(call));
    }
  }

  // ----------------------------------------------------------------------------- interactive calls

  /**
   * A call of an interactive tool: a leased context keeps its lease (taken first if need be), but
   * the call runs where no other owner's interactive call is in flight ({@link InteractiveCalls}),
   * waiting in order for such a session within its deadline.
   */
  private void forwardInteractive(UpstreamCall call) {
    boolean refused =
        call.leaseless()
            ? table.live().isEmpty() && !sessions.mayOpenAnother()
            : sessions.leaseFor(call.context(), call.delivery()) == null;
    if (refused) {
      refuseUnavailable(call);
      return;
    }
    if (interactive.waiting() >= env.settings().stashCapacity()) {
      call.reject(
          SupervisorErrors.interactiveOverloaded(server, interactive.waiting()), env.observer());
      return;
    }
    interactive.arrived(
        call.callId(),
        call,
        InteractiveCalls.owner(call.callId(), call.context(), call.callDelivery() != null),
        System.nanoTime());
    timers.startSingleTimer(
        new InteractiveWaitTimer(call.callId()),
        new InteractiveWaitElapsed(call.callId()),
        call.deadline());
    placeInteractive();
  }

  /** Every waiting interactive call that may run now goes to its session, in order. */
  private void placeInteractive() {
    InteractiveCalls.Placement<UpstreamCall> placement;
    while ((placement =
            interactive.next(
                this::leasedSessionOf,
                sessions.liveByLoad(),
                sessions.mayOpenAnother(),
                System.nanoTime()))
        != null) {
      timers.cancel(new InteractiveWaitTimer(placement.callId()));
      UpstreamCall call = placement.call();
      Duration left = call.deadline().minusNanos(placement.waitedNanos());
      if (left.isNegative() || left.isZero()) { // its timer is on its way
        interactive.ended(placement.callId());
        call.reject(
            SupervisorErrors.timeout(call.method(), server, call.deadline().toMillis()),
            env.observer());
        continue;
      }
      var session =
          placement.opensSession() ? sessions.openUnleased() : table.get(placement.sessionId());
      if (placement.opensSession()) {
        interactive.running(placement.callId(), placement.owner(), session.id);
      }
      sessions.keepFor(session, left);
      session.ref.tell(new SessionActor.Forward(call.withDeadline(left), true));
    }
  }

  private Long leasedSessionOf(UpstreamCall call) {
    var session = table.sessionOf(call.context());
    return session == null ? null : session.id;
  }

  /**
   * No session can take the call (the circuit is open, or every session it may use is busy at
   * {@code maxSessions}): it is refused at once, and its CLIENT span, ended at once, says why.
   */
  private void refuseUnavailable(UpstreamCall call) {
    JsonRpcError error = sessions.unavailable();
    McpSpan span = env.telemetry().client(call.method(), call.params(), env.networkTransport());
    span.event("refused", error.message());
    span.end(call.errorResponse(error));
    call.reject(error, env.observer());
  }

  private Behavior<Command> onInteractiveWaitElapsed(InteractiveWaitElapsed elapsed) {
    UpstreamCall call = interactive.withdraw(elapsed.callId());
    if (call != null) {
      call.reject(
          SupervisorErrors.timeout(call.method(), server, call.deadline().toMillis()),
          env.observer());
    }
    return Behaviors.same();
  }

  private void interactiveCallEnded(SessionActor.InteractiveCallEnded ended) {
    Long session = interactive.sessionOf(ended.callId());
    if (session != null && session == ended.sessionId()) {
      interactive.ended(ended.callId());
      placeInteractive();
    }
  }

  private void toolIsInteractive(SessionActor.ToolIsInteractive tool) {
    if (interactive.mark(tool.tool())) {
      context
          .getLog()
          .info(
              "{}: tool {} sends server requests: its calls get a session where no other"
                  + " caller's such call is in flight",
              env.keyId(),
              tool.tool());
    }
  }

  private Behavior<Command> onRelease(Release release) {
    subscriptions.released(release.context()); // while its session is still in the table
    sessions.release(release.context());
    lists.released(release.context());
    return Behaviors.same();
  }

  /**
   * An evicted session's subscriptions are answered "unavailable"; its interactive calls (which it
   * answers itself) no longer hold it, so waiting ones may go elsewhere.
   */
  private void sessionGone(long sessionId, String why) {
    subscriptions.sessionGone(sessionId, why);
    interactive.sessionGone(sessionId);
    placeInteractive();
  }

  /**
   * A leaseless call's session is not recorded: every live session is told (call ids are unique, a
   * session that does not hold the call ignores it).
   */
  private Behavior<Command> onCancel(Cancel cancel) {
    if (lists.cancel(cancel.callId())) {
      return Behaviors.same();
    }
    UpstreamCall waiting = interactive.withdraw(cancel.callId());
    if (waiting != null) {
      timers.cancel(new InteractiveWaitTimer(cancel.callId()));
      waiting.reject(SupervisorErrors.cancelled(waiting.method(), server), env.observer());
      return Behaviors.same();
    }
    Long running = interactive.sessionOf(cancel.callId());
    var session = running != null ? table.get(running) : table.sessionOf(cancel.context());
    if (session != null) {
      session.ref.tell(new SessionActor.Cancel(cancel.callId()));
    } else {
      table.live().forEach(live -> live.ref.tell(new SessionActor.Cancel(cancel.callId())));
    }
    return Behaviors.same();
  }

  private Behavior<Command> onNotify(Notify notify) {
    var session = table.sessionOf(notify.context());
    if (session != null) {
      session.ref.tell(
          new SessionActor.ClientNotification(notify.context(), notify.method(), notify.params()));
    }
    return Behaviors.same();
  }

  // ------------------------------------------------------------------------------- session reports

  private Behavior<Command> onSessionReport(SessionActor.Report report) {
    if (report instanceof SessionActor.SessionReady ready) {
      return onSessionReady(ready);
    } else if (report instanceof SessionActor.SessionDown down) {
      return onSessionDown(down);
    } else if (report instanceof SessionActor.AttemptFailed failed) {
      sessions.attemptFailed(failed.sessionId(), failed.reason(), failed.fatal());
    } else if (report instanceof SessionActor.SessionLoad load) {
      table.saturated(load.sessionId(), load.saturated());
    } else if (report instanceof SessionActor.SessionFailing failing) {
      return onSessionFailing(failing);
    } else if (report instanceof SessionActor.ListChanged changed) {
      lists.listChanged(changed.notification());
      env.observer().listChanged(env.serverName(), changed.notification());
    } else if (report instanceof SessionActor.InteractiveCallEnded ended) {
      interactiveCallEnded(ended);
    } else if (report instanceof SessionActor.ToolIsInteractive tool) {
      toolIsInteractive(tool);
    } else if (report instanceof SessionActor.Drained drained) {
      return onDrained(drained);
    }
    return Behaviors.same();
  }

  private Behavior<Command> onSessionReady(SessionActor.SessionReady ready) {
    sessions.sessionReady(ready.sessionId());
    subscriptions.reconnected(ready.sessionId());
    return Behaviors.same();
  }

  private Behavior<Command> onSessionDown(SessionActor.SessionDown down) {
    lists.connectionLost();
    subscriptions.connectionLost(down.sessionId());
    table.ready(down.sessionId(), false);
    return Behaviors.same();
  }

  private Behavior<Command> onCooldownElapsed() {
    if (sessions.cooldownElapsed()) {
      reportIfIdle();
    }
    return Behaviors.same();
  }

  private Behavior<Command> onSessionFailing(SessionActor.SessionFailing failing) {
    var session = table.get(failing.sessionId());
    if (session != null) {
      context
          .getLog()
          .warn("{}: evicting session {}: {}", env.keyId(), session.id, failing.reason());
      sessions.evict(session, CloseReason.FAILURES, failing.reason());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onSessionTerminated(SessionTerminated terminated) {
    // one that stopped without being told to takes its leases along: the next request opens a new
    // session
    table.stopped(terminated.sessionId());
    subscriptions.sessionGone(terminated.sessionId(), "its session stopped");
    interactive.sessionGone(terminated.sessionId());
    placeInteractive();
    reportIfIdle();
    return Behaviors.same();
  }

  // --------------------------------------------------------------------------------- shutting down

  /**
   * Shutdown starts with a drain (none with a zero {@code drainTimeout}): nothing new is taken, the
   * calls the sessions hold go on (an interactive call still waiting for a session is refused: none
   * will open for it).
   */
  private Behavior<Command> onShutdown() {
    gate.close(); // callers go through the router from now on
    interactive
        .drain()
        .forEach(call -> call.reject(SupervisorErrors.shuttingDown(), env.observer()));
    if (table.live().isEmpty() || env.settings().drainTimeout().isZero()) {
      return closeEverything();
    }
    table.live().forEach(session -> session.ref.tell(SessionActor.Drain.INSTANCE));
    timers.startSingleTimer(DrainElapsed.INSTANCE, env.settings().drainTimeout());
    return draining();
  }

  /**
   * Every session answers the calls it holds; one that holds none ({@link SessionActor.Drained}) is
   * closed. Once none is left, or at the drain's deadline, whatever remains closes.
   */
  private Behavior<Command> draining() {
    return withSessionsKept(
        Behaviors.receive(Command.class)
            .onMessage(Acquire.class, fromRouter(this::refuseAcquire))
            .onMessage(Request.class, fromRouter(this::refuseRequest))
            .onMessage(Direct.class, fromRouter(direct -> sendBack(direct.call())))
            .onMessage(Shutdown.class, fromRouter(notUsed -> Behaviors.same()))
            .onMessageEquals(DrainElapsed.INSTANCE, this::closeEverything)
            .onMessage(FromSession.class, from -> untilDrained(onSessionReport(from.report())))
            .onMessage(
                SessionTerminated.class,
                terminated -> untilDrained(onSessionTerminated(terminated))));
  }

  /** A session that may have left the table (drained, evicted, stopped): the last one ends it. */
  private Behavior<Command> untilDrained(Behavior<Command> next) {
    return table.live().isEmpty() ? closeEverything() : next;
  }

  private Behavior<Command> onDrained(SessionActor.Drained drained) {
    var session = table.get(drained.sessionId());
    if (session != null) {
      sessions.evict(session, CloseReason.SHUTDOWN, "shutdown");
    }
    return Behaviors.same();
  }

  /**
   * Every session is told to close (what they still hold is answered "shutting down"); the actor
   * stops once all have stopped. Nothing new is accepted meanwhile.
   */
  private Behavior<Command> closeEverything() {
    timers.cancel(DrainElapsed.INSTANCE);
    lists.shutdown();
    table.live().forEach(s -> sessions.evict(s, CloseReason.SHUTDOWN, "shutdown"));
    table
        .closing()
        .forEach(s -> s.ref.tell(new SessionActor.Close(CloseReason.SHUTDOWN, "shutdown")));
    return table.isEmpty() ? stopAfterCalls() : shuttingDown();
  }

  private Behavior<Command> refuseAcquire(Acquire acquire) {
    acquire.replyTo().tell(AcquireReply.failed(SupervisorErrors.shuttingDown()));
    return Behaviors.same();
  }

  private Behavior<Command> refuseRequest(Request request) {
    request.call().reject(SupervisorErrors.shuttingDown(), env.observer());
    return Behaviors.same();
  }

  private Behavior<Command> shuttingDown() {
    return Behaviors.receive(Command.class)
        .onMessage(Counted.class, this::whileClosing)
        .onMessage(SessionTerminated.class, this::onTerminatedWhileShuttingDown)
        .onAnyMessage(notUsed -> Behaviors.same()) // reports, timers: nothing is left to do
        .build();
  }

  /**
   * What passed the gate while the sessions close: new calls and leases are refused (a caller's,
   * which the new configuration may send elsewhere, goes back to the router), a snapshot is
   * answered; releases and the rest have nothing left to do.
   */
  private Behavior<Command> whileClosing(Counted message) {
    gate.processed();
    if (message instanceof Acquire acquire) {
      refuseAcquire(acquire);
    } else if (message instanceof Request request) {
      refuseRequest(request);
    } else if (message instanceof Direct direct) {
      sendBack(direct.call());
    } else if (message instanceof GetSnapshot get) {
      onGetSnapshot(get);
    } else if (message instanceof RestartSession restart) {
      restart.replyTo().tell(false);
    }
    return Behaviors.same();
  }

  private Behavior<Command> onTerminatedWhileShuttingDown(SessionTerminated terminated) {
    table.stopped(terminated.sessionId());
    return table.isEmpty() ? stopAfterCalls() : Behaviors.same();
  }

  /**
   * Stops once the calls' own actors have: a call answered by a session now gone may still be on
   * its way to its caller, and stopping would stop its actor with it.
   */
  private Behavior<Command> stopAfterCalls() {
    List<ActorRef<Void>> calls =
        context.getChildren().stream()
            .filter(child -> child.path().name().startsWith(CALL_ACTOR))
            .toList();
    calls.forEach(call -> context.watchWith(call, CallEnded.INSTANCE));
    return callsEnding(calls.size());
  }

  /**
   * Stops once the calls' own actors have and every message that passed the (closed) gate was
   * processed: a caller's call on its way is sent back to the router, never lost.
   */
  private Behavior<Command> callsEnding(int left) {
    if (left == 0 && gate.drained()) {
      return Behaviors.stopped();
    }
    return Behaviors.receive(Command.class)
        .onMessage(
            Counted.class,
            message -> {
              whileClosing(message);
              return callsEnding(left);
            })
        .onMessageEquals(CallEnded.INSTANCE, () -> callsEnding(left - 1))
        .onAnyMessage(notUsed -> Behaviors.same())
        .build();
  }

  private static Behavior<Command> same(Runnable action) {
    action.run();
    return Behaviors.same();
  }

  /**
   * With nothing held and a quiet circuit, tells the router (once per count of its messages) it may
   * stop this.
   */
  private void reportIfIdle() {
    if (table.isEmpty() && circuit.isQuiet()) {
      gate.idleReport()
          .ifPresent(
              processed -> router.tell(new KeyRouter.KeyIdle(env.keyId(), incarnation, processed)));
    }
  }

  // -------------------------------------------------------------------------------------- snapshot

  private Behavior<Command> onGetSnapshot(GetSnapshot get) {
    context.spawnAnonymous(
        KeySnapshots.collect(
            server,
            env.keyId(),
            env.server().spec().transport(),
            env.server().spec().protocol().configName(),
            table,
            circuit.state().word,
            lists.waiting(),
            interactive.tools(),
            env.settings(),
            get.replyTo()));
    return Behaviors.same();
  }
}
