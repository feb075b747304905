package dev.mcpsupervisor.actors.key;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.base.ConfigChange;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.base.SupervisorObserver;
import dev.mcpsupervisor.actors.base.SupervisorSettings;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.KeySnapshot;
import dev.mcpsupervisor.actors.delivery.CallActor;
import dev.mcpsupervisor.actors.delivery.CallerKind;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.actors.delivery.ContextListener;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.actors.session.AcquireReply;
import dev.mcpsupervisor.actors.session.KeyEnvironment;
import dev.mcpsupervisor.actors.session.SessionActor;
import dev.mcpsupervisor.actors.telemetry.McpTelemetry;
import dev.mcpsupervisor.protocol.config.CallerHeaders;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.upstream.UpstreamConnector;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The supervisor's router, a child of the {@link SupervisorGuardian}: routes every call to its
 * server key's actor (starting one on first use, forgetting it when it goes idle) but a context's
 * leased calls once it has sent one, which go to the key actor it entered in the {@link
 * LeaseDirectory}, starts a {@link ContextDelivery} for each context with a listener (and names it
 * in that context's calls and leases), knows which keys each context has touched (for releaseAll),
 * and keeps the contexts their calls keep ({@link KeptContexts}: a 2026-07-28 caller's identity
 * context) while they are in use and for {@code gateway.sessionIdleTimeout} after. No map here
 * grows with the number of keys ever seen: entries live as long as their key actor.
 */
public final class KeyRouter {

  public interface Command {}

  // From the Java API.

  /**
   * A call; a 2026-07-28 caller's is served in that era by a server that speaks it (an {@code auto}
   * HTTP server has a key for each era's callers). {@code callActor}: the call's own actor, spawned
   * by the key actor that serves it; or null.
   */
  public record Request(UpstreamCall call, CallActor callActor) implements Command {
    /** A call answered where it says, with no actor of its own. */
    public Request(UpstreamCall call) {
      this(call, null);
    }
  }

  /**
   * A leased call whose caller found no entry in the {@link LeaseDirectory}: counted there from the
   * caller's send until the router has routed it, so the context's later calls do not go straight
   * to the key actor past it (they come through here after it, in order).
   */
  public record Missed(UpstreamCall call) implements Command {}

  public record Cancel(String context, String server, long callId) implements Command {}

  public record Notify(String context, String server, String method, JsonNode params)
      implements Command {}

  /**
   * @param caller {@link CallerKind#LEASED}, or {@link CallerKind#STATELESS_IN_CONTEXT}: a lease of
   *     a context its calls keep, which the acquire holds until answered
   */
  public record Acquire(
      String context, String server, CallerKind caller, ActorRef<AcquireReply> replyTo)
      implements Command {}

  public record Release(String context, String server, ActorRef<Done> replyTo) implements Command {}

  public record ReleaseAll(String context, ActorRef<Done> replyTo) implements Command {}

  /**
   * A leaseless call to an {@code isolation: context} server was answered: the session its context
   * leased for it ends with the last such call in flight (never under another, nor an explicit
   * lease).
   */
  public record ReleaseCallHold(String context, String server) implements Command {}

  /**
   * A call of a context its calls keep ({@link CallerKind#STATELESS_IN_CONTEXT}) ended, told by its
   * own actor as it stops: the last one in flight starts the context's idle time.
   */
  public record KeptCallEnded(String context) implements Command {}

  /**
   * Releases every context its calls keep, in use or not (the gateway stops); replies once done as
   * far as any caller can tell.
   */
  public record ReleaseKept(ActorRef<Done> replyTo) implements Command {}

  /**
   * Node-local by nature: it carries the listener object itself. The listener then lives only in
   * the context's {@link ContextDelivery} on this node; every other message names contexts by their
   * string id or that actor's ref.
   */
  public record Register(String context, ContextListener listener) implements Command {}

  public record GetSnapshot(ActorRef<SupervisorSnapshot> replyTo) implements Command {}

  /**
   * The context's calls act as {@code identity} (a name of {@code gateway.identities}) from now on:
   * a server whose headers name the caller ({@code ${identity:NAME}}) is reached with that
   * identity's secrets, and a server of {@code passCallerToken} with {@code token} (the bearer
   * token its caller presented; null: none known yet). Forgotten with the context's {@link
   * ReleaseAll}. {@code caller}: {@link CallerKind#LEASED}, or {@link
   * CallerKind#STATELESS_IN_CONTEXT} for a context its calls keep (kept from then on, and its idle
   * time starts again if nothing of it is in flight).
   */
  public record ActAs(String context, String identity, String token, CallerKind caller)
      implements Command {
    @Override
    public String toString() { // never the token
      return "ActAs[" + context + ", " + identity + "]";
    }
  }

  /** Whom a context acts as: an identity, and the token its caller presented (or null). */
  private record Caller(String identity, String token) {
    static final Caller NONE = new Caller(null, null);

    @Override
    public String toString() { // never the token
      return "Caller[" + identity + "]";
    }
  }

  /**
   * Routes by {@code config} from now on; answers what changed. The keys of removed and changed
   * servers are retired: nothing new reaches them, their calls in flight are answered (for at most
   * {@code drainTimeout}), then their sessions close. Unchanged servers' keys are left alone.
   */
  public record Reconfigure(SupervisorConfig config, ActorRef<ConfigChange> replyTo)
      implements Command {}

  /**
   * An operator's restart of one upstream session ({@link SessionActor.Restart}); false when the
   * key has no such session, or it is not ready.
   */
  public record RestartSession(
      String keyId, long sessionId, String reason, ActorRef<Boolean> replyTo) implements Command {}

  /**
   * Refuses new calls and leases from now on, lets the calls in flight be answered (for at most
   * {@code drainTimeout}), then closes every session (answering what is left with "shutting down");
   * replies when all are gone. Idempotent: a later one waits for the same shutdown.
   */
  public record Shutdown(ActorRef<Done> replyTo) implements Command {}

  // From key actors and sessions.

  /** The key actor holds nothing, having processed {@code processed} messages from the router. */
  record KeyIdle(String keyId, long incarnation, long processed) implements Command {}

  /**
   * A key actor used session ids below {@code nextSessionId}: later incarnations start beyond it.
   */
  record SessionIdsReserved(long nextSessionId) implements Command {}

  // Private.

  private record KeyTerminated(String keyId, long incarnation) implements Command {}

  /** A kept context's idle time is over (also the timer's key). */
  private record KeptIdle(String context) implements Command {}

  /** A kept context's acquire was answered ({@code reply} null: not in time): it holds no more. */
  private record KeptAcquired(
      String context, String server, AcquireReply reply, ActorRef<AcquireReply> replyTo)
      implements Command {}

  private enum ShutdownTimedOut implements Command {
    INSTANCE
  }

  public static Behavior<Command> create(
      SupervisorConfig config,
      SupervisorSettings settings,
      UpstreamConnector connector,
      SupervisorObserver observer,
      McpTelemetry telemetry,
      LeaseDirectory leases) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers ->
                    new KeyRouter(
                            config, settings, connector, observer, telemetry, leases, context,
                            timers)
                        .active()));
  }

  /** What calls are routed by: replaced whole by {@link Reconfigure}. */
  private SupervisorConfig config;

  private ServerKeys serverKeys;

  private final SupervisorSettings settings;
  private final UpstreamConnector connector;
  private final SupervisorObserver observer;
  private final McpTelemetry telemetry;

  /** Where the leases it indexed are: a context's leased calls skip it once it has sent one. */
  private final LeaseDirectory leases;

  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;

  private final Map<String, KeyEntry> keys = new HashMap<>();

  /**
   * Key actors of servers removed or changed by a reconfiguration, by incarnation: draining, then
   * stopping. Only cancels (of their calls in flight) and snapshots still reach them.
   */
  private final Map<Long, KeyEntry> retiring = new HashMap<>();

  private final ContextIndex index = new ContextIndex();

  /** Whom each context acts as ({@link ActAs}), until its release. */
  private final Map<String, Caller> actingAs = new HashMap<>();

  private final ContextDeliveries deliveries;

  private final KeptContexts kept = new KeptContexts();

  /** A kept context's idle time: {@code gateway.sessionIdleTimeout} in force. */
  private Duration keptIdleTimeout;

  private long nextIncarnation = 1;
  private long sessionIdFloor = 1;
  private final List<ActorRef<Done>> shutdownWaiters = new ArrayList<>();

  private KeyRouter(
      SupervisorConfig config,
      SupervisorSettings settings,
      UpstreamConnector connector,
      SupervisorObserver observer,
      McpTelemetry telemetry,
      LeaseDirectory leases,
      ActorContext<Command> context,
      TimerScheduler<Command> timers) {
    this.leases = leases;
    this.config = config;
    this.settings = settings;
    this.connector = connector;
    this.observer = observer;
    this.telemetry = telemetry;
    this.context = context;
    this.timers = timers;
    this.serverKeys = new ServerKeys(config);
    this.keptIdleTimeout = keptIdleTimeout(config);
    this.deliveries =
        new ContextDeliveries(context, ContextDeliveries.retireGrace(config, settings));
  }

  private Behavior<Command> active() {
    return withKeysKept(Behaviors.receive(Command.class))
        .onMessage(Request.class, this::onRequest)
        .onMessage(
            Missed.class, missed -> countedOff(missed, onRequest(new Request(missed.call()))))
        .onMessage(Acquire.class, this::onAcquire)
        .onMessage(Register.class, this::onRegister)
        .onMessage(Reconfigure.class, this::onReconfigure)
        .onMessage(Shutdown.class, this::onShutdown)
        .onMessage(KeyTerminated.class, this::onKeyTerminated)
        .build();
  }

  /**
   * Draining, then closing every key: nothing new starts; done once the last key actor has stopped.
   */
  private Behavior<Command> shuttingDown() {
    return withKeysKept(Behaviors.receive(Command.class))
        .onMessage(Request.class, this::rejectRequest)
        .onMessage(
            Missed.class, missed -> countedOff(missed, rejectRequest(new Request(missed.call()))))
        .onMessage(Acquire.class, this::rejectAcquire)
        .onMessage(Register.class, this::settleRegister)
        .onMessage(Shutdown.class, this::onShutdownAgain)
        .onMessage(KeyTerminated.class, this::onKeyTerminatedWhileShuttingDown)
        .onMessage(ShutdownTimedOut.class, notUsed -> onShutdownTimedOut())
        .build();
  }

  /** What both states do alike: calls and leases already made go on until their keys stop. */
  private BehaviorBuilder<Command> withKeysKept(BehaviorBuilder<Command> builder) {
    return builder
        .onMessage(Cancel.class, this::onCancel)
        .onMessage(Notify.class, this::onNotify)
        .onMessage(Release.class, this::onRelease)
        .onMessage(ReleaseAll.class, this::onReleaseAll)
        .onMessage(ReleaseCallHold.class, this::onReleaseCallHold)
        .onMessage(KeptCallEnded.class, this::onKeptCallEnded)
        .onMessage(KeptIdle.class, this::onKeptIdle)
        .onMessage(KeptAcquired.class, this::onKeptAcquired)
        .onMessage(ReleaseKept.class, this::onReleaseKept)
        .onMessage(GetSnapshot.class, this::onGetSnapshot)
        .onMessage(ActAs.class, this::onActAs)
        .onMessage(RestartSession.class, this::onRestartSession)
        .onMessage(KeyIdle.class, this::onKeyIdle)
        .onMessage(SessionIdsReserved.class, this::onSessionIdsReserved);
  }

  // --------------------------------------------------------------------------------------- routing

  private Behavior<Command> countedOff(Missed missed, Behavior<Command> next) {
    leases.routed(missed.call().context());
    return next;
  }

  private Behavior<Command> rejectRequest(Request request) {
    request.call().reject(SupervisorErrors.shuttingDown(), observer);
    return Behaviors.same();
  }

  private Behavior<Command> onRequest(Request request) {
    UpstreamCall call = request.call();
    ServerConfig server = config.servers().get(call.server());
    // a hidden tool is refused here: no session is started or leased for it
    JsonRpcError refused =
        server == null
            ? SupervisorErrors.unknownServer(call.server())
            : server.toolFilter().refusal(call.method(), call.params());
    Caller caller = actingAs.getOrDefault(call.context(), Caller.NONE);
    ServerKeys.Choice choice =
        refused != null
            ? null
            : serverKeys.choose(
                server.name(), call.caller().stateless(), caller.identity(), caller.token());
    if (choice != null) {
      refused = choice.refused();
    }
    if (refused != null) {
      call.reject(refused, observer);
      return Behaviors.same();
    }
    KeyEntry key = keyActorFor(server, choice.keyId());
    if (call.caller() == CallerKind.STATELESS_IN_CONTEXT) {
      hold(call.context()); // until the call's own actor stops
    }
    if (call.leaseless() && server.isolation() == Isolation.SHARED) {
      // nothing to remember: the context leases nothing by it (under isolation: context it leases
      // a session of its own until the answer, released like any lease)
      send(key, new ServerKeyActor.Request(call, request.callActor()));
      return Behaviors.same();
    }
    ActorRef<ContextDelivery.Command> delivery = deliveries.of(call.context());
    if (call.leaseless()) {
      index.addCallHold(call.context(), key.keyId);
    } else {
      index.add(call.context(), key.keyId);
      if (request.callActor() == null && !CallerHeaders.actsAsCaller(server)) {
        leases.enter(
            call.context(), server.name(), new LeaseDirectory.Entry(key.ref, key.gate, delivery));
      }
    }
    send(
        key,
        new ServerKeyActor.Request(
            delivery == null ? call : call.withDelivery(delivery), request.callActor()));
    return Behaviors.same();
  }

  private Behavior<Command> rejectAcquire(Acquire acquire) {
    acquire.replyTo().tell(AcquireReply.failed(SupervisorErrors.shuttingDown()));
    return Behaviors.same();
  }

  private Behavior<Command> onAcquire(Acquire acquire) {
    ServerConfig server = config.servers().get(acquire.server());
    if (server == null) {
      acquire.replyTo().tell(AcquireReply.failed(SupervisorErrors.unknownServer(acquire.server())));
      return Behaviors.same();
    }
    Caller caller = actingAs.getOrDefault(acquire.context(), Caller.NONE);
    ServerKeys.Choice choice =
        serverKeys.choose(server.name(), false, caller.identity(), caller.token());
    if (choice.refused() != null) {
      acquire.replyTo().tell(AcquireReply.failed(choice.refused()));
      return Behaviors.same();
    }
    KeyEntry key = keyActorFor(server, choice.keyId());
    index.add(acquire.context(), key.keyId);
    ActorRef<ContextDelivery.Command> delivery = deliveries.of(acquire.context());
    if (acquire.caller() != CallerKind.STATELESS_IN_CONTEXT) {
      send(key, new ServerKeyActor.Acquire(acquire.context(), delivery, acquire.replyTo()));
      return Behaviors.same();
    }
    // held until answered: a session slower to start than the idle time is not released under it
    hold(acquire.context());
    key.gate.count();
    context.ask(
        AcquireReply.class,
        key.ref,
        settings.acquireTimeout(),
        replyTo -> new ServerKeyActor.Acquire(acquire.context(), delivery, replyTo),
        (reply, failure) ->
            new KeptAcquired(acquire.context(), server.name(), reply, acquire.replyTo()));
    return Behaviors.same();
  }

  /** A leaseless call's context is not indexed: its cancel goes to the server's key actors. */
  private Behavior<Command> onCancel(Cancel cancel) {
    KeyEntry leased = leasedKey(cancel.context(), cancel.server());
    ServerKeyActor.Cancel message = new ServerKeyActor.Cancel(cancel.context(), cancel.callId());
    if (leased != null) {
      send(leased, message);
      return Behaviors.same();
    }
    for (String keyId : serverKeys.keysOf(cancel.server())) {
      KeyEntry key = keys.get(keyId);
      if (key != null) {
        send(key, message);
      }
    }
    // the call may be in flight on a key retired since (call ids are unique: others ignore it)
    retiring.values().forEach(key -> send(key, message));
    return Behaviors.same();
  }

  private Behavior<Command> onNotify(Notify notify) {
    KeyEntry key = leasedKey(notify.context(), notify.server());
    if (key != null) {
      send(key, new ServerKeyActor.Notify(notify.context(), notify.method(), notify.params()));
    }
    return Behaviors.same();
  }

  /**
   * Every lease is taken through this actor, which indexes it first: a context not indexed under a
   * key holds no lease there, so releasing it needs no message.
   */
  private Behavior<Command> onRelease(Release release) {
    KeyEntry key = leasedKey(release.context(), release.server());
    if (key != null) {
      leases.forget(release.context(), release.server(), null);
      send(key, new ServerKeyActor.Release(release.context()));
      index.remove(release.context(), key.keyId);
    }
    leases.settled(release.context());
    // later messages to the key actor are processed after this release: it is done as far as any
    // caller can tell
    release.replyTo().tell(Done.getInstance());
    return Behaviors.same();
  }

  private Behavior<Command> onReleaseCallHold(ReleaseCallHold release) {
    KeyEntry key = leasedKey(release.context(), release.server());
    if (key != null && index.releaseCallHold(release.context(), key.keyId)) {
      send(key, new ServerKeyActor.Release(release.context()));
    }
    return Behaviors.same();
  }

  private Behavior<Command> onReleaseAll(ReleaseAll releaseAll) {
    release(releaseAll.context());
    leases.settled(releaseAll.context());
    releaseAll.replyTo().tell(Done.getInstance());
    return Behaviors.same();
  }

  /**
   * Every lease of the context ends, its listener and whom it acts as are forgotten: the key actors
   * take the releases before any later call of it.
   */
  private void release(String contextId) {
    leases.forgetContext(contextId);
    for (String keyId : index.removeContext(contextId)) {
      send(keys.get(keyId), new ServerKeyActor.Release(contextId));
    }
    deliveries.release(contextId);
    actingAs.remove(contextId);
  }

  // -------------------------------------------------------------------------------- kept contexts

  /** A call or an acquire of a kept context holds it: its idle time, if it ran, stops. */
  private void hold(String contextId) {
    kept.held(contextId);
    timers.cancel(new KeptIdle(contextId));
  }

  private Behavior<Command> onKeptCallEnded(KeptCallEnded ended) {
    if (kept.ended(ended.context())) {
      startIdleTime(ended.context());
    }
    return Behaviors.same();
  }

  /** For the idle timeout in force now: a reload may have changed it since the last time. */
  private void startIdleTime(String contextId) {
    KeptIdle idle = new KeptIdle(contextId);
    timers.startSingleTimer(idle, idle, keptIdleTimeout);
  }

  private static Duration keptIdleTimeout(SupervisorConfig config) {
    GatewayConfig gateway = config.gateway() != null ? config.gateway() : GatewayConfig.defaults();
    return gateway.sessionIdleTimeout();
  }

  private Behavior<Command> onKeptIdle(KeptIdle idle) {
    if (kept.idleOver(idle.context())) {
      release(idle.context());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onKeptAcquired(KeptAcquired acquired) {
    acquired
        .replyTo()
        .tell(
            acquired.reply() != null
                ? acquired.reply()
                : AcquireReply.failed(
                    SupervisorErrors.unavailableBecause(
                        acquired.server(),
                        "not ready within " + settings.acquireTimeout().toMillis() + " ms")));
    return onKeptCallEnded(new KeptCallEnded(acquired.context()));
  }

  private Behavior<Command> onReleaseKept(ReleaseKept releaseKept) {
    for (String contextId : kept.releaseAll()) {
      timers.cancel(new KeptIdle(contextId));
      release(contextId);
    }
    releaseKept.replyTo().tell(Done.getInstance());
    return Behaviors.same();
  }

  /**
   * A first listener gets the context its delivery, and the keys the context already holds leases
   * on learn it (their sessions send there from then on); a later one only replaces the listener
   * inside that delivery.
   */
  private Behavior<Command> onRegister(Register register) {
    leases.settled(register.context()); // its next leased call enters its lease with the delivery
    ActorRef<ContextDelivery.Command> created =
        deliveries.register(register.context(), register.listener());
    if (created == null) {
      return Behaviors.same();
    }
    for (String keyId : index.keysOf(register.context())) {
      send(keys.get(keyId), new ServerKeyActor.DeliverTo(register.context(), created));
    }
    return Behaviors.same();
  }

  /** Shutting down, a listener changes nothing: the hold its caller took ends. */
  private Behavior<Command> settleRegister(Register register) {
    leases.settled(register.context());
    return Behaviors.same();
  }

  private Behavior<Command> onActAs(ActAs actAs) {
    if (actAs.caller() == CallerKind.STATELESS_IN_CONTEXT && kept.touched(actAs.context())) {
      // kept from now on, so that it is forgotten even if no call follows; and those that follow
      // come within its idle time, so they find whom it acts as
      startIdleTime(actAs.context());
    }
    Caller was = actingAs.get(actAs.context());
    // a context told only its identity (a session started or adopted here) keeps a token it has
    actingAs.put(
        actAs.context(),
        new Caller(
            actAs.identity(),
            actAs.token() == null && was != null && was.identity().equals(actAs.identity())
                ? was.token()
                : actAs.token()));
    return Behaviors.same();
  }

  /** The key actor {@code keyId} of {@code server}, started on first use. */
  private KeyEntry keyActorFor(ServerConfig server, String keyId) {
    KeyEntry key = keys.get(keyId);
    if (key == null) {
      long incarnation = nextIncarnation++;
      KeyEnvironment env =
          new KeyEnvironment(
              serverKeys.spokenBy(server.name(), keyId),
              keyId,
              settings,
              connector,
              observer,
              telemetry);
      KeyGate gate = new KeyGate();
      ActorRef<ServerKeyActor.Command> ref =
          context.spawn(
              ServerKeyActor.create(env, context.getSelf(), incarnation, sessionIdFloor, gate),
              URLEncoder.encode(keyId, StandardCharsets.UTF_8) + "-" + incarnation);
      context.watchWith(ref, new KeyTerminated(keyId, incarnation));
      key = new KeyEntry(keyId, server.name(), incarnation, ref, gate);
      keys.put(keyId, key);
    }
    return key;
  }

  /** The key of {@code serverName} on which the context holds a lease (either era's), or null. */
  private KeyEntry leasedKey(String contextId, String serverName) {
    for (String keyId : serverKeys.keysOf(serverName)) {
      if (index.has(contextId, keyId)) {
        return keys.get(keyId);
      }
    }
    return null;
  }

  private void send(KeyEntry key, ServerKeyActor.Command message) {
    key.gate.count();
    key.ref.tell(message);
  }

  // --------------------------------------------------------------------------- key actor lifecycle

  /**
   * Stop the key actor only if it has seen everything sent to it, by this router or by a caller who
   * found it in the lease directory, and its gate closes: then nothing can be lost to it.
   */
  private Behavior<Command> onKeyIdle(KeyIdle idle) {
    KeyEntry key = keys.get(idle.keyId());
    if (key != null
        && key.incarnation == idle.incarnation()
        && key.gate.closeAt(idle.processed())) {
      forget(key);
      context.stop(key.ref);
    }
    return Behaviors.same();
  }

  private Behavior<Command> onKeyTerminated(KeyTerminated terminated) {
    KeyEntry key = keys.get(terminated.keyId());
    if (key != null && key.incarnation == terminated.incarnation()) {
      forget(key);
    }
    retiring.remove(terminated.incarnation());
    return Behaviors.same();
  }

  private Behavior<Command> onKeyTerminatedWhileShuttingDown(KeyTerminated terminated) {
    onKeyTerminated(terminated);
    if (keys.isEmpty() && retiring.isEmpty()) {
      completeShutdown();
    }
    return Behaviors.same();
  }

  private void forget(KeyEntry key) {
    keys.remove(key.keyId);
    index.removeKey(key.keyId).forEach(each -> leases.forget(each, key.server, key.ref));
  }

  // ------------------------------------------------------------------------------- reconfiguration

  /**
   * The new configuration routes the next message. A retired key is told to shut down (it drains
   * first) and leaves the index: its contexts' leases end with its sessions, and their next calls
   * lease on the new key.
   */
  private Behavior<Command> onReconfigure(Reconfigure reconfigure) {
    ConfigChange change = ConfigChange.between(config, reconfigure.config());
    for (String server : change.retired()) {
      serverKeys.keysOf(server).forEach(this::retire);
    }
    config = reconfigure.config();
    keptIdleTimeout = keptIdleTimeout(config);
    ServerKeys previous = serverKeys;
    serverKeys = new ServerKeys(config);
    serverKeys.carryOver(previous).forEach(this::retire);
    reconfigure.replyTo().tell(change);
    return Behaviors.same();
  }

  /**
   * The key {@code keyId}, if running, is told to shut down (it drains first); it leaves the index.
   */
  private void retire(String keyId) {
    KeyEntry key = keys.get(keyId);
    if (key != null) {
      forget(key);
      retiring.put(key.incarnation, key);
      send(key, ServerKeyActor.Shutdown.INSTANCE);
    }
  }

  private Behavior<Command> onSessionIdsReserved(SessionIdsReserved reserved) {
    sessionIdFloor = Math.max(sessionIdFloor, reserved.nextSessionId());
    return Behaviors.same();
  }

  // ---------------------------------------------------------------------------- snapshot, shutdown

  private Behavior<Command> onGetSnapshot(GetSnapshot get) {
    List<KeyEntry> live = new ArrayList<>(keys.values());
    live.addAll(retiring.values());
    live.forEach(key -> key.gate.count());
    context.spawnAnonymous(
        Aggregator.create(
            KeySnapshot.class,
            replyTo -> live.forEach(key -> key.ref.tell(new ServerKeyActor.GetSnapshot(replyTo))),
            live.size(),
            settings.snapshotTimeout(),
            parts ->
                new SupervisorSnapshot(
                    parts.stream()
                        .sorted(
                            Comparator.comparing(KeySnapshot::server)
                                .thenComparing(KeySnapshot::keyId))
                        .toList()),
            get.replyTo()));
    return Behaviors.same();
  }

  private Behavior<Command> onRestartSession(RestartSession restart) {
    KeyEntry key = keys.get(restart.keyId());
    if (key == null) {
      restart.replyTo().tell(false);
    } else {
      send(
          key,
          new ServerKeyActor.RestartSession(
              restart.sessionId(), restart.reason(), restart.replyTo()));
    }
    return Behaviors.same();
  }

  private Behavior<Command> onShutdown(Shutdown shutdown) {
    keys.values().forEach(key -> send(key, ServerKeyActor.Shutdown.INSTANCE));
    timers.startSingleTimer(ShutdownTimedOut.INSTANCE, settings.shutdownBound());
    onShutdownAgain(shutdown);
    return shuttingDown();
  }

  /** Another caller waits for the same shutdown; with no key left it is over already. */
  private Behavior<Command> onShutdownAgain(Shutdown shutdown) {
    shutdownWaiters.add(shutdown.replyTo());
    if (keys.isEmpty() && retiring.isEmpty()) {
      completeShutdown();
    }
    return Behaviors.same();
  }

  private Behavior<Command> onShutdownTimedOut() {
    context
        .getLog()
        .warn(
            "shutdown: {} server keys still closing after {}",
            keys.size() + retiring.size(),
            settings.shutdownBound());
    completeShutdown();
    return Behaviors.same();
  }

  private void completeShutdown() {
    timers.cancel(ShutdownTimedOut.INSTANCE);
    shutdownWaiters.forEach(waiter -> waiter.tell(Done.getInstance()));
    shutdownWaiters.clear();
  }
}
