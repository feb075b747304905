package dev.mcpsupervisor.actors.key;

import dev.mcpsupervisor.actors.base.SupervisionEvent;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.actors.session.CloseReason;
import dev.mcpsupervisor.actors.session.KeyEnvironment;
import dev.mcpsupervisor.actors.session.SessionActor;
import dev.mcpsupervisor.protocol.UpstreamDiagnostics;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import java.time.Duration;
import java.util.function.BiConsumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The sessions of one server key, on the key actor's thread: which session a context's lease goes
 * to (by isolation policy, maxSessions and the circuit breaker), opening sessions, and evicting
 * them (released, idle, failing, or not ready when the circuit opens). The key actor routes its
 * messages about leases and session attempts here and keeps the choice of behaviour.
 */
final class KeySessions {

  private record IdleTimer(long sessionId) {}

  private final KeyEnvironment env;
  private final String server;
  private final ActorContext<ServerKeyActor.Command> context;
  private final TimerScheduler<ServerKeyActor.Command> timers;
  private final CircuitBreaker circuit;
  private final BiConsumer<Long, String> sessionGone;
  private final LeaseTable<ActorRef<SessionActor.Command>, ActorRef<ContextDelivery.Command>>
      table = new LeaseTable<>();
  private long nextSessionId;

  /** Where the ids it reserves for sessions are told. */
  private final ActorRef<KeyRouter.Command> router;

  /** Where its sessions report, the key actor's adapter. */
  private final ActorRef<SessionActor.Report> reports;

  /**
   * @param firstSessionId beyond every session id any earlier incarnation of any key used
   * @param sessionGone told a session's id and why once it has left the table (evicted)
   */
  KeySessions(
      KeyEnvironment env,
      ActorRef<KeyRouter.Command> router,
      long firstSessionId,
      ActorContext<ServerKeyActor.Command> context,
      TimerScheduler<ServerKeyActor.Command> timers,
      CircuitBreaker circuit,
      ActorRef<SessionActor.Report> reports,
      BiConsumer<Long, String> sessionGone) {
    this.reports = reports;
    this.router = router;
    this.env = env;
    this.server = env.serverName();
    this.nextSessionId = firstSessionId;
    this.context = context;
    this.timers = timers;
    this.circuit = circuit;
    this.sessionGone = sessionGone;
  }

  LeaseTable<ActorRef<SessionActor.Command>, ActorRef<ContextDelivery.Command>> table() {
    return table;
  }

  /** The session of an id still in the table, else null. */
  ActorRef<SessionActor.Command> ref(long sessionId) {
    var session = table.get(sessionId);
    return session == null ? null : session.ref;
  }

  /**
   * The context's session, assigning one (and a lease) if it has none; null while the circuit
   * forbids it. The session learns the context's delivery actor before the message that follows
   * (same sender, same receiver: in order).
   */
  LeaseTable.Entry<ActorRef<SessionActor.Command>> leaseFor(
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
    // told before the session runs: its own events (ready, attempt failed) come after this one
    env.supervision(SupervisionEvent.Kind.STARTED, id, "");
    ActorRef<SessionActor.Command> ref =
        context.spawn(SessionActor.create(id, env, reports), "session-" + id);
    context.watchWith(ref, new ServerKeyActor.SessionTerminated(id));
    router.tell(new KeyRouter.SessionIdsReserved(nextSessionId));
    return table.add(id, ref);
  }

  /**
   * The session for a leaseless call: the context's own if it holds a lease, else under shared
   * isolation a pooled one (opened if need be), leased to nobody; under context isolation a lease
   * of its own (released with the answer by the caller). Null while the circuit forbids a new
   * session. A pooled session nobody leases closes once idle for the idle timeout after its last
   * leaseless call, or after that call's deadline if later (so never under a call in flight).
   */
  LeaseTable.Entry<ActorRef<SessionActor.Command>> sessionFor(UpstreamCall call) {
    String contextId = call.context();
    var session = table.sessionOf(contextId);
    if (session != null || env.server().isolation() == Isolation.CONTEXT) {
      return session != null ? session : leaseFor(contextId, null);
    }
    session = table.pooled(env.server().maxSessions());
    if (session != null) {
      env.observer().sessionReused(server);
    } else if (circuit.mayOpenSession(table.noneStarting())) {
      session = openSession();
    } else {
      return null;
    }
    keepFor(session, call.deadline());
    return session;
  }

  /**
   * The live sessions, least leased first (as {@link LeaseTable#pooled} prefers them): where an
   * interactive call may go.
   */
  java.util.List<Long> liveByLoad() {
    return table.live().stream()
        .sorted(
            java.util.Comparator.comparingInt(
                    (LeaseTable.Entry<ActorRef<SessionActor.Command>> s) -> s.contexts.size())
                .thenComparingLong(s -> s.id))
        .map(s -> s.id)
        .toList();
  }

  /** Under shared isolation, whether one more session may open now (maxSessions, the circuit). */
  boolean mayOpenAnother() {
    return table.live().size() < env.server().maxSessions()
        && circuit.mayOpenSession(table.noneStarting());
  }

  /** A new pooled session, leased to nobody (for an interactive call that found none free). */
  LeaseTable.Entry<ActorRef<SessionActor.Command>> openUnleased() {
    return openSession();
  }

  /**
   * A call runs on the session outside any lease: a session nobody leases closes once idle for the
   * idle timeout after it, or after the call's deadline if later (so never under a call in flight).
   */
  void keepFor(LeaseTable.Entry<ActorRef<SessionActor.Command>> session, Duration deadline) {
    if (session.contexts.isEmpty()) {
      Duration idle = env.server().idleTimeout();
      timers.startSingleTimer(
          new IdleTimer(session.id),
          new ServerKeyActor.IdleTimeout(session.id),
          deadline.compareTo(idle) > 0 ? deadline : idle);
    }
  }

  /** The context got a listener: its session (if it has one) learns it. */
  void deliverTo(String contextId, ActorRef<ContextDelivery.Command> delivery) {
    var session = table.sessionOf(contextId);
    if (session != null) {
      deliverTo(session, contextId, delivery);
    }
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

  /**
   * Ends the context's lease; a session left without leases closes at once (context isolation) or
   * after the idle timeout.
   */
  void release(String contextId) {
    var session = table.release(contextId);
    if (session != null) {
      session.ref.tell(new SessionActor.Unleased(contextId));
    }
    if (session != null && session.contexts.isEmpty()) {
      if (env.server().isolation() == Isolation.CONTEXT) {
        evict(session, CloseReason.RELEASED, "its context released it");
      } else {
        timers.startSingleTimer(
            new IdleTimer(session.id),
            new ServerKeyActor.IdleTimeout(session.id),
            env.server().idleTimeout());
      }
    }
  }

  void idleTimeout(long sessionId) {
    var session = table.get(sessionId);
    if (session != null && session.contexts.isEmpty()) {
      evict(session, CloseReason.IDLE, "idle for " + env.server().idleTimeout());
    }
  }

  /**
   * Takes the session out of the table (and its leases) before telling it to close: nothing can
   * reach it after.
   */
  void evict(
      LeaseTable.Entry<ActorRef<SessionActor.Command>> session, CloseReason reason, String detail) {
    table.evict(session);
    sessionGone.accept(session.id, detail);
    timers.cancel(new IdleTimer(session.id));
    session.ref.tell(new SessionActor.Close(reason, detail));
    if (reason != CloseReason.SHUTDOWN && reason != CloseReason.CONNECT_FAILED) {
      env.supervision(
          SupervisionEvent.Kind.EVICTED,
          session.id,
          reason.word() + ": " + UpstreamDiagnostics.headline(detail));
    }
  }

  /** Why no session can be had now: the circuit, or maxSessions. */
  JsonRpcError unavailable() {
    return table.mayOpen(env.server().isolation(), env.server().maxSessions())
        ? circuit.unavailable()
        : SupervisorErrors.tooManySessions(server, env.server().maxSessions());
  }

  // ------------------------------------------------------------------------------- circuit breaker

  void sessionReady(long sessionId) {
    table.ready(sessionId, true);
    if (circuit.close()) {
      context.getLog().info("{}: circuit closed, a session is ready again", env.keyId());
      env.supervision(SupervisionEvent.Kind.CIRCUIT_CLOSED, 0, "a session is ready again");
    }
    timers.cancel(ServerKeyActor.CooldownElapsed.INSTANCE);
  }

  /** A connect or initialize failed; {@code fatal}: the session gives up (close it). */
  void attemptFailed(long sessionId, String reason, boolean fatal) {
    boolean mustOpen = circuit.attemptFailed(reason);
    var session = table.get(sessionId);
    if (session != null) {
      session.ready = false;
      if (fatal) {
        evict(session, CloseReason.CONNECT_FAILED, reason);
      }
    }
    if (mustOpen) {
      openCircuit();
    } else {
      // failures are consecutive while they come within a cooldown of each other; the key stays
      // until then
      startCooldown();
    }
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
      env.supervision(
          SupervisionEvent.Kind.CIRCUIT_OPEN,
          0,
          circuit.consecutiveFailures()
              + " failed attempts, the last: "
              + UpstreamDiagnostics.headline(circuit.lastFailure()));
    }
    startCooldown();
    table.live().stream()
        .filter(s -> !s.ready)
        .forEach(s -> evict(s, CloseReason.CIRCUIT_OPEN, circuit.lastFailure()));
  }

  /**
   * Open → half-open: the next call may open one probe session. Half-open (or closed with failures
   * counted) for another quiet cooldown with no attempt under way → closed with the failures
   * forgotten, so that an abandoned key can go idle and stop.
   *
   * @return true when the circuit closed (the key may be idle now)
   */
  boolean cooldownElapsed() {
    if (circuit.state() == CircuitBreaker.State.OPEN) {
      circuit.halfOpen();
      startCooldown();
    } else if (table.noneStarting()) {
      if (circuit.close()) {
        env.supervision(SupervisionEvent.Kind.CIRCUIT_CLOSED, 0, "quiet for a cooldown");
      }
      return true;
    }
    return false;
  }

  private void startCooldown() {
    timers.startSingleTimer(
        ServerKeyActor.CooldownElapsed.INSTANCE, env.settings().circuitCooldown());
  }
}
