package dev.mcpsupervisor.actors;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.SupervisorSnapshot.KeySnapshot;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.japi.function.Function;

/**
 * One actor per server key: its sessions (children), the leases of contexts on them, their
 * assignment by isolation policy, idle eviction, the key's circuit breaker, and its session ids
 * (monotonic, never recycled: the guardian hands every incarnation a first id beyond every id used
 * before).
 *
 * <p>Every message from the guardian is counted. With no session, no lease and a closed circuit
 * without failures (recent failures and an open or half-open circuit are remembered until forgotten
 * after a quiet cooldown), the actor tells the guardian it is idle together with that count; the
 * guardian stops it only if it has sent nothing since, so no message is ever lost to a stopping
 * actor.
 */
public final class ServerKeyActor {

  public interface Command {}

  // From the guardian (counted).

  /**
   * Takes a lease for the context (a session is started if needed); the session answers when ready.
   */
  public record Acquire(
      String context, ActorRef<ContextDelivery.Command> delivery, ActorRef<AcquireReply> replyTo)
      implements Command {}

  /** A request for the context's session (taking a lease first if the context has none). */
  public record Request(UpstreamCall call) implements Command {}

  public record Cancel(String context, long callId) implements Command {}

  public record Notify(String context, String method, JsonNode params) implements Command {}

  /**
   * The context got a listener: its session sends the context's messages to this delivery actor
   * from now on.
   */
  public record DeliverTo(String context, ActorRef<ContextDelivery.Command> delivery)
      implements Command {}

  /** Ends the context's lease. Idempotent. */
  public record Release(String context) implements Command {}

  public record GetSnapshot(ActorRef<KeySnapshot> replyTo) implements Command {}

  /** Closes every session, then stops. */
  public enum Shutdown implements Command {
    INSTANCE
  }

  // From the sessions.

  record SessionReady(long sessionId) implements Command {}

  /** A ready session lost its connection and is reconnecting. */
  record SessionDown(long sessionId, String reason) implements Command {}

  /**
   * A connect or initialize failed; {@code fatal}: the session never was ready and gives up (close
   * it).
   */
  record AttemptFailed(long sessionId, String reason, boolean fatal) implements Command {}

  /** The session is (or stopped being) at maxInflightPerSession. */
  record SessionLoad(long sessionId, boolean saturated) implements Command {}

  /** The session's requests keep failing: evict it. */
  record SessionFailing(long sessionId, String reason) implements Command {}

  // Private.

  private record SessionTerminated(long sessionId) implements Command {}

  private record IdleTimeout(long sessionId) implements Command {}

  private enum CooldownElapsed implements Command {
    INSTANCE
  }

  private record IdleTimer(long sessionId) {}

  /**
   * @param incarnation distinguishes this actor from earlier and later ones of the same key
   * @param firstSessionId beyond every session id any earlier incarnation of any key used
   */
  public static Behavior<Command> create(
      KeyEnvironment env, long incarnation, long firstSessionId) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers ->
                    new ServerKeyActor(env, incarnation, firstSessionId, context, timers)
                        .active()));
  }

  private final KeyEnvironment env;
  private final String server;
  private final long incarnation;
  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final LeaseTable<ActorRef<SessionActor.Command>, ActorRef<ContextDelivery.Command>>
      table = new LeaseTable<>();

  private final CircuitBreaker circuit;
  private final ListRequests lists;
  private final SubscriptionRequests subscriptions;
  private long nextSessionId;

  /** The router's messages processed, for the passivation handshake. */
  private final Passivation.Inbox fromRouter = new Passivation.Inbox();

  private ServerKeyActor(
      KeyEnvironment env,
      long incarnation,
      long firstSessionId,
      ActorContext<Command> context,
      TimerScheduler<Command> timers) {
    this.env = env;
    this.server = env.serverName();
    this.incarnation = incarnation;
    this.nextSessionId = firstSessionId;
    this.context = context;
    this.timers = timers;
    this.circuit = new CircuitBreaker(server, env.settings().circuitMaxFailures());
    this.lists = new ListRequests(env, context, timers);
    this.subscriptions =
        new SubscriptionRequests(
            env,
            context,
            sessionId -> {
              var session = table.get(sessionId);
              return session == null ? null : session.ref;
            });
  }

  // ---------------------------------------------------------------------------------------- active

  private Behavior<Command> active() {
    return Behaviors.receive(Command.class)
        .onMessage(Acquire.class, fromGuardian(this::onAcquire))
        .onMessage(Request.class, fromGuardian(this::onRequest))
        .onMessage(Cancel.class, fromGuardian(this::onCancel))
        .onMessage(Notify.class, fromGuardian(this::onNotify))
        .onMessage(DeliverTo.class, fromGuardian(this::onDeliverTo))
        .onMessage(Release.class, fromGuardian(this::onRelease))
        .onMessage(GetSnapshot.class, fromGuardian(this::onGetSnapshot))
        .onMessage(Shutdown.class, fromGuardian(notUsed -> onShutdown()))
        .onMessage(SessionReady.class, this::onSessionReady)
        .onMessage(SessionDown.class, this::onSessionDown)
        .onMessage(AttemptFailed.class, this::onAttemptFailed)
        .onMessage(
            SessionLoad.class,
            load -> same(() -> table.saturated(load.sessionId(), load.saturated())))
        .onMessage(SessionFailing.class, this::onSessionFailing)
        .onMessage(ListRequests.Event.class, event -> same(() -> lists.on(event)))
        .onMessage(SubscriptionRequests.Event.class, event -> same(() -> subscriptions.on(event)))
        .onMessage(IdleTimeout.class, this::onIdleTimeout)
        .onMessage(CooldownElapsed.class, notUsed -> onCooldownElapsed())
        .onMessage(SessionTerminated.class, this::onSessionTerminated)
        .build();
  }

  /** Counts a guardian message, and tells the guardian when it leaves this actor idle. */
  private <M> Function<M, Behavior<Command>> fromGuardian(Function<M, Behavior<Command>> handler) {
    return message -> {
      fromRouter.processed();
      Behavior<Command> next = handler.apply(message);
      reportIfIdle();
      return next;
    };
  }

  private Behavior<Command> onAcquire(Acquire acquire) {
    var session = leaseFor(acquire.context(), acquire.delivery());
    if (session == null) {
      acquire.replyTo().tell(AcquireReply.failed(unavailable()));
    } else {
      session.ref.tell(new SessionActor.AwaitReady(acquire.replyTo()));
    }
    return Behaviors.same();
  }

  /** A list may be answered from the cache, or wait for one fetch shared with other callers. */
  private Behavior<Command> onRequest(Request request) {
    if (ResourceSubscriptions.handles(request.call().method())) {
      subscription(request.call());
    } else if (!lists.serve(request.call(), this::forward)) {
      forward(request.call());
    }
    return Behaviors.same();
  }

  /** Resource subscriptions are refcounted per session: the upstream hears the first and last. */
  private void subscription(UpstreamCall call) {
    if (!McpMethods.RESOURCES_SUBSCRIBE.equals(call.method())) {
      subscriptions.serve(call, -1);
      return;
    }
    var session = leaseFor(call.context(), call.delivery());
    if (session == null) {
      call.reject(unavailable(), env.observer());
    } else {
      subscriptions.serve(call, session.id);
    }
  }

  private void forward(UpstreamCall call) {
    var session = leaseFor(call.context(), call.delivery());
    if (session == null) {
      call.reject(unavailable(), env.observer());
    } else {
      session.ref.tell(new SessionActor.Forward(call));
    }
  }

  /**
   * The context's session, assigning one (and a lease) if it has none; null while the circuit
   * forbids it. The session learns the context's delivery actor before the message that follows
   * (same sender, same receiver: in order).
   */
  private LeaseTable.Entry<ActorRef<SessionActor.Command>> leaseFor(
      String contextId, ActorRef<ContextDelivery.Command> delivery) {
    var session = table.sessionOf(contextId);
    if (session != null) {
      deliverTo(session, contextId, delivery);
      return session;
    }
    session =
        env.server().isolation() == Isolation.SHARED
            ? table.pooled(env.server().maxSessions())
            : null;
    if (session != null) {
      env.observer().sessionReused(server);
    } else if (table.mayOpen(env.server().isolation(), env.server().maxSessions())
        && circuit.mayOpenSession(table.noneStarting())) {
      session = openSession();
    } else {
      return null;
    }
    table.lease(contextId, session);
    session.ref.tell(new SessionActor.Leased(contextId, null)); // counts when attributing requests
    deliverTo(session, contextId, delivery);
    timers.cancel(new IdleTimer(session.id));
    return session;
  }

  private LeaseTable.Entry<ActorRef<SessionActor.Command>> openSession() {
    long id = nextSessionId++;
    ActorRef<SessionActor.Command> ref =
        context.spawn(SessionActor.create(id, env, context.getSelf()), "session-" + id);
    context.watchWith(ref, new SessionTerminated(id));
    env.router().tell(new KeyRouter.SessionIdsReserved(nextSessionId));
    env.observer().sessionCreated(server);
    return table.add(id, ref);
  }

  /** The session learns the context's listener, unless it knows it already. */
  private void deliverTo(
      LeaseTable.Entry<ActorRef<SessionActor.Command>> session,
      String contextId,
      ActorRef<ContextDelivery.Command> delivery) {
    if (delivery != null && table.listen(contextId, delivery)) {
      session.ref.tell(new SessionActor.Leased(contextId, delivery));
    }
  }

  private Behavior<Command> onDeliverTo(DeliverTo deliverTo) {
    var session = table.sessionOf(deliverTo.context());
    if (session != null) {
      deliverTo(session, deliverTo.context(), deliverTo.delivery());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onRelease(Release release) {
    subscriptions.released(release.context()); // while its session is still in the table
    var session = table.release(release.context());
    if (session != null) {
      session.ref.tell(new SessionActor.Unleased(release.context()));
    }
    if (session != null && session.contexts.isEmpty()) {
      if (env.server().isolation() == Isolation.CONTEXT) {
        evict(session, CloseReason.RELEASED, "its context released it");
      } else {
        timers.startSingleTimer(
            new IdleTimer(session.id), new IdleTimeout(session.id), env.server().idleTimeout());
      }
    }
    return Behaviors.same();
  }

  private Behavior<Command> onIdleTimeout(IdleTimeout timeout) {
    var session = table.get(timeout.sessionId());
    if (session != null && session.contexts.isEmpty()) {
      evict(session, CloseReason.IDLE, "idle for " + env.server().idleTimeout());
    }
    return Behaviors.same();
  }

  /**
   * Takes the session out of the table (and its leases) before telling it to close: nothing can
   * reach it after.
   */
  private void evict(
      LeaseTable.Entry<ActorRef<SessionActor.Command>> session, CloseReason reason, String detail) {
    table.evict(session);
    subscriptions.sessionGone(session.id, detail);
    timers.cancel(new IdleTimer(session.id));
    session.ref.tell(new SessionActor.Close(reason, detail));
    if (reason != CloseReason.SHUTDOWN && reason != CloseReason.CONNECT_FAILED) {
      env.observer().sessionEvicted(server, reason.word());
    }
  }

  private Behavior<Command> onCancel(Cancel cancel) {
    var session = lists.cancel(cancel.callId()) ? null : table.sessionOf(cancel.context());
    if (session != null) {
      session.ref.tell(new SessionActor.Cancel(cancel.callId()));
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

  private Behavior<Command> onSessionReady(SessionReady ready) {
    table.ready(ready.sessionId(), true);
    subscriptions.reconnected(ready.sessionId());
    if (circuit.close()) {
      context.getLog().info("{}: circuit closed, a session is ready again", env.keyId());
    }
    timers.cancel(CooldownElapsed.INSTANCE);
    return Behaviors.same();
  }

  private Behavior<Command> onSessionDown(SessionDown down) {
    lists.connectionLost();
    subscriptions.connectionLost(down.sessionId());
    table.ready(down.sessionId(), false);
    return Behaviors.same();
  }

  private Behavior<Command> onAttemptFailed(AttemptFailed failed) {
    boolean mustOpen = circuit.attemptFailed(failed.reason());
    var session = table.get(failed.sessionId());
    if (session != null) {
      session.ready = false;
      if (failed.fatal()) {
        evict(session, CloseReason.CONNECT_FAILED, failed.reason());
      }
    }
    if (mustOpen) {
      openCircuit();
    } else {
      // failures are consecutive while they come within a cooldown of each other; the key stays
      // until then
      timers.startSingleTimer(CooldownElapsed.INSTANCE, env.settings().circuitCooldown());
    }
    return Behaviors.same();
  }

  /**
   * Fail fast for a cooldown: sessions that are not ready are closed, their callers answered
   * "unavailable".
   */
  private void openCircuit() {
    if (circuit.open()) {
      context
          .getLog()
          .warn(
              "{}: circuit open after {} failed attempts: {}",
              env.keyId(),
              circuit.consecutiveFailures(),
              circuit.lastFailure());
    }
    timers.startSingleTimer(CooldownElapsed.INSTANCE, env.settings().circuitCooldown());
    table.live().stream()
        .filter(s -> !s.ready)
        .forEach(s -> evict(s, CloseReason.CIRCUIT_OPEN, circuit.lastFailure()));
  }

  /**
   * Open → half-open: the next call may open one probe session. Half-open (or closed with failures
   * counted) for another quiet cooldown with no attempt under way → closed with the failures
   * forgotten, so that an abandoned key can go idle and stop.
   */
  private Behavior<Command> onCooldownElapsed() {
    if (circuit.state() == CircuitBreaker.State.OPEN) {
      circuit.halfOpen();
      timers.startSingleTimer(CooldownElapsed.INSTANCE, env.settings().circuitCooldown());
    } else if (table.noneStarting()) {
      circuit.close();
      reportIfIdle();
    }
    return Behaviors.same();
  }

  private JsonRpcError unavailable() {
    return table.mayOpen(env.server().isolation(), env.server().maxSessions())
        ? circuit.unavailable()
        : SupervisorErrors.tooManySessions(server, env.server().maxSessions());
  }

  private Behavior<Command> onSessionFailing(SessionFailing failing) {
    var session = table.get(failing.sessionId());
    if (session != null) {
      context
          .getLog()
          .warn("{}: evicting session {}: {}", env.keyId(), session.id, failing.reason());
      evict(session, CloseReason.FAILURES, failing.reason());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onSessionTerminated(SessionTerminated terminated) {
    // one that stopped without being told to takes its leases along: the next request opens a new
    // session
    table.stopped(terminated.sessionId());
    subscriptions.sessionGone(terminated.sessionId(), "its session stopped");
    reportIfIdle();
    return Behaviors.same();
  }

  // --------------------------------------------------------------------------------- shutting down

  /**
   * Every session is told to close; the actor stops once all have stopped. Nothing new is accepted
   * meanwhile.
   */
  private Behavior<Command> onShutdown() {
    lists.shutdown();
    table.live().forEach(s -> evict(s, CloseReason.SHUTDOWN, "shutdown"));
    table
        .closing()
        .forEach(s -> s.ref.tell(new SessionActor.Close(CloseReason.SHUTDOWN, "shutdown")));
    return table.isEmpty() ? Behaviors.stopped() : shuttingDown();
  }

  private Behavior<Command> shuttingDown() {
    return Behaviors.receive(Command.class)
        .onMessage(
            Acquire.class,
            acquire ->
                same(
                    () ->
                        acquire
                            .replyTo()
                            .tell(AcquireReply.failed(SupervisorErrors.shuttingDown()))))
        .onMessage(
            Request.class,
            request ->
                same(() -> request.call().reject(SupervisorErrors.shuttingDown(), env.observer())))
        .onMessage(GetSnapshot.class, this::onGetSnapshot)
        .onMessage(SessionTerminated.class, this::onTerminatedWhileShuttingDown)
        .onAnyMessage(
            notUsed -> Behaviors.same()) // releases, reports, timers: nothing is left to do
        .build();
  }

  private Behavior<Command> onTerminatedWhileShuttingDown(SessionTerminated terminated) {
    table.stopped(terminated.sessionId());
    return table.isEmpty() ? Behaviors.stopped() : Behaviors.same();
  }

  private static Behavior<Command> same(Runnable action) {
    action.run();
    return Behaviors.same();
  }

  /**
   * With nothing held and a quiet circuit, tells the guardian (once per count of its messages) it
   * may stop this.
   */
  private void reportIfIdle() {
    if (table.isEmpty() && circuit.isQuiet()) {
      fromRouter
          .idleReport()
          .ifPresent(
              processed ->
                  env.router().tell(new KeyRouter.KeyIdle(env.keyId(), incarnation, processed)));
    }
  }

  // -------------------------------------------------------------------------------------- snapshot

  private Behavior<Command> onGetSnapshot(GetSnapshot get) {
    context.spawnAnonymous(
        KeySnapshots.collect(
            server, env.keyId(), table, circuit.state().word, env.settings(), get.replyTo()));
    return Behaviors.same();
  }
}
