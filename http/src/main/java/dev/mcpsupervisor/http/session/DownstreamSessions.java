package dev.mcpsupervisor.http.session;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.access.SessionIdSeal;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.access.SessionQuota;
import dev.mcpsupervisor.http.endpoint.AggregatedEndpoint;
import dev.mcpsupervisor.http.endpoint.InForce;
import dev.mcpsupervisor.http.endpoint.McpEndpoint;
import dev.mcpsupervisor.http.endpoint.SingleServerEndpoint;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import dev.mcpsupervisor.protocol.CrossNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The registry of downstream sessions: issues their ids (32 bytes of SecureRandom), spawns one
 * {@link DownstreamSession} per id, and is the single writer of the {@link SessionDirectory} by
 * which the HTTP routes tell a session directly. An id is unknown (404) when never issued, deleted,
 * expired, created on another endpoint, or created by another {@link Identity} (a session id is no
 * credential: one caller who learns another's id still cannot use it, end it or read its streams).
 * A session is removed from routing before it is told to end, and its {@link RouteGate} closes, so
 * what still reaches an ending session is answered and nothing is routed to one that stopped.
 */
public final class DownstreamSessions {

  public interface Command {}

  public enum Reply implements CrossNode {
    DONE,
    UNKNOWN_SESSION
  }

  /**
   * Starts a session on {@code /mcp} ({@code server} null) or on {@code /servers/<server>/mcp}.
   *
   * @param owner the authenticated caller: the session serves it alone, over its allowed servers
   */
  public record Create(String server, Identity owner, Kind kind, ActorRef<Created> replyTo)
      implements Command {}

  /** What a session serves: a 2025-era client's session, or one 2026-07-28 listen stream. */
  public enum Kind {
    SESSION,
    LISTEN_STREAM
  }

  /**
   * @param sessionId null when no session was started
   * @param full why not, when the gateway is at a session limit; null when it is stopping
   */
  public record Created(String sessionId, String full) {}

  /**
   * A session another cluster node served, taken over here from its record unless it already is
   * (its node is gone or stopping); then {@code command}, if any, goes to it as the routes would.
   */
  public record Adopt(
      SessionRecord record, String path, Identity caller, DownstreamSession.Routed command)
      implements Command {}

  /**
   * A warm hand-over: the session another cluster node stops serving is adopted here from its
   * record before any of its requests comes, and leases the servers its record names (starting
   * their upstream sessions), so its first request here pays no cold start. Replies once they are
   * ready (or failed, or the session is not adopted here).
   */
  public record Prepare(SessionRecord record, ActorRef<Done> replyTo) implements Command {}

  /** DELETE: ends the session; replies once its leases are released. */
  public record Terminate(String sessionId, String path, Identity caller, ActorRef<Reply> replyTo)
      implements Command {}

  public record ListSessions(ActorRef<Listing> replyTo) implements Command {}

  /**
   * An operator ends a session named by its shortened id (as {@link Listing} shows it); replies
   * whether exactly one session had that id (then it ends, its leases released).
   */
  public record CloseShown(String shownId, String reason, ActorRef<Boolean> replyTo)
      implements Command {}

  /**
   * Stop taking sessions, close GET streams and reply once no exchange is open (or the caller gives
   * up).
   */
  public record Drain(ActorRef<Done> replyTo) implements Command {}

  /** End every session (releasing its leases) and reply once all are gone. */
  public record EndAll(ActorRef<Done> replyTo) implements Command {}

  // From sessions.

  public record Describe(
      String sessionId, String protocolVersion, String clientName, String clientVersion)
      implements Command {}

  /**
   * A session asks to be ended (an idle one only once its {@link RouteGate} closed with nothing on
   * its way).
   */
  public record EndMe(String sessionId, String reason) implements Command {}

  public record Drained(String sessionId) implements Command {}

  private record SessionStopped(String sessionId) implements Command {}

  /**
   * A reload changed these servers: every session whose endpoint serves one hears its lists
   * changed, as if the server had said so ({@code notifications/<kind>/list_changed}).
   */
  public record ServersChanged(List<String> servers) implements Command {}

  /** Time for the idle sweep ({@link SessionTable#askIdle}). */
  private enum SweepIdle implements Command {
    INSTANCE
  }

  /**
   * A reload changed the idle timeout: the sweeps follow the new one from now on, here and in the
   * cluster's replicas.
   */
  public enum IdleTimeoutChanged implements Command {
    INSTANCE
  }

  /** For readiness and the admin page. */
  public record Listing(boolean accepting, List<SessionInfo> sessions) {
    public Listing {
      sessions = List.copyOf(sessions);
    }
  }

  /**
   * @param id the redacted session id
   * @param identity the owner's {@link Identity#name()}
   */
  public record SessionInfo(
      String id,
      String endpoint,
      String identity,
      String protocolVersion,
      String clientName,
      String clientVersion,
      Instant createdAt,
      Instant lastActivity) {}

  /**
   * @param inForce the endpoints and access rules in force
   * @param directory the directory of sessions this registry writes and the HTTP routes read
   */
  public static Behavior<Command> create(
      SessionSupervisor supervisor,
      InForce inForce,
      GatewaySettings settings,
      Supplier<Duration> idleTimeout,
      GatewayMetrics metrics,
      SessionDirectory directory,
      SessionReplicas.Replication replication) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers ->
                    new DownstreamSessions(
                            supervisor,
                            inForce,
                            settings,
                            idleTimeout,
                            metrics,
                            directory,
                            replication,
                            context,
                            timers)
                        .active()));
  }

  private static final List<String> LIST_CHANGES =
      List.of(
          McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED,
          McpMethods.NOTIFICATION_PROMPTS_LIST_CHANGED,
          McpMethods.NOTIFICATION_RESOURCES_LIST_CHANGED);

  private final SessionSupervisor supervisor;
  private final InForce inForce;
  private final GatewaySettings settings;

  /** {@code gateway.sessionIdleTimeout} in force: read by each sweep and each session's check. */
  private final Supplier<Duration> idleTimeout;

  private final GatewayMetrics metrics;
  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final SecureRandom random = new SecureRandom();

  /** What this node's session ids start with in a cluster (see {@link SessionIds}), or null. */
  private final String nodeTag;

  /** What this node's session ids end with in a cluster, or null. */
  private final SessionIdSeal seal;

  private final SessionReplicas.Replication replication;
  private final SessionDirectory directory;
  private final SessionQuota quota;
  private final SessionTable sessions;
  private long spawned;

  private DownstreamSessions(
      SessionSupervisor supervisor,
      InForce inForce,
      GatewaySettings settings,
      Supplier<Duration> idleTimeout,
      GatewayMetrics metrics,
      SessionDirectory directory,
      SessionReplicas.Replication replication,
      ActorContext<Command> context,
      TimerScheduler<Command> timers) {
    this.supervisor = supervisor;
    this.replication = replication;
    this.directory = directory;
    ClusterConfig cluster =
        supervisor.config().gateway() == null ? null : supervisor.config().gateway().cluster();
    boolean clustered = supervisor.membership().clustered() && cluster != null;
    this.nodeTag = clustered ? SessionIds.nodeTag(supervisor.membership().selfNode()) : null;
    this.seal = clustered ? SessionIdSeal.of(cluster) : null;
    this.sessions = new SessionTable(directory);
    this.inForce = inForce;
    this.settings = settings;
    this.idleTimeout = idleTimeout;
    this.metrics = metrics;
    this.context = context;
    this.timers = timers;
    this.quota =
        new SessionQuota(
            () -> inForce.get().gateway().sessionLimits().maxDownstreamSessions(),
            () -> inForce.get().gateway().sessionLimits().maxDownstreamSessionsPerIdentity());
    nextSweep();
  }

  private Behavior<Command> active() {
    return Behaviors.receive(Command.class)
        .onMessage(Create.class, this::onCreate)
        .onMessage(Adopt.class, this::onAdopt)
        .onMessage(Prepare.class, this::onPrepare)
        .onMessage(Terminate.class, this::onTerminate)
        .onMessage(Describe.class, this::onDescribe)
        .onMessage(EndMe.class, this::onEndMe)
        .onMessage(ListSessions.class, this::onListSessions)
        .onMessage(CloseShown.class, this::onCloseShown)
        .onMessage(Drain.class, this::onDrain)
        .onMessage(Drained.class, this::onDrained)
        .onMessage(EndAll.class, this::onEndAll)
        .onMessage(SessionStopped.class, this::onSessionStopped)
        .onMessage(SweepIdle.class, notUsed -> onSweepIdle())
        .onMessage(IdleTimeoutChanged.class, notUsed -> onIdleTimeoutChanged())
        .onMessage(ServersChanged.class, this::onServersChanged)
        .build();
  }

  /**
   * Through the path of an upstream's own list_changed: each session forwards what it may. A
   * session of {@code /mcp} hears of every server changed, added or removed; one of a server's own
   * endpoint, of its server.
   */
  private Behavior<Command> onServersChanged(ServersChanged changed) {
    for (RoutedSession session : sessions.routableSessions()) {
      for (String server : changed.servers()) {
        if (session.path.equals(AggregatedEndpoint.PATH)
            || session.path.equals(SingleServerEndpoint.pathOf(server))) {
          LIST_CHANGES.forEach(
              method ->
                  session.ref.tell(
                      new DownstreamSession.FromContext(
                          new ContextDelivery.Notification(
                              server, new JsonRpcNotification(method, null), null))));
        }
      }
    }
    return Behaviors.same();
  }

  private Behavior<Command> onCreate(Create create) {
    String path =
        create.server() == null
            ? AggregatedEndpoint.PATH
            : SingleServerEndpoint.pathOf(create.server());
    McpEndpoint served = inForce.get().endpoints().get(path);
    if (!sessions.accepting() || served == null) {
      create.replyTo().tell(new Created(null, null));
      return Behaviors.same();
    }
    String caller = SessionQuota.callerOf(create.owner(), null);
    String full = quota.refusal(caller);
    if (full != null) {
      create.replyTo().tell(new Created(null, full));
      return Behaviors.same();
    }
    String id = SessionIds.generate(random, nodeTag, seal);
    start(id, served, create.owner(), create.kind(), null);
    create.replyTo().tell(new Created(id, null));
    return Behaviors.same();
  }

  /**
   * Adopted sessions count towards this node's limits but are never refused for them: they exist
   * already, and refusing one would end it.
   */
  private Behavior<Command> onAdopt(Adopt adopt) {
    adopt(adopt.record());
    if (adopt.command() != null) {
      directory.tell(adopt.record().id(), adopt.path(), adopt.caller(), adopt.command());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onPrepare(Prepare prepare) {
    SessionRecord record = prepare.record();
    context.getLog().debug("prepares session {}", SessionIds.redact(record.id()));
    adopt(record);
    if (sessions.routable(record.id()) == null) {
      prepare.replyTo().tell(Done.getInstance());
      return Behaviors.same();
    }
    // in the session's context, as its calls go out: its end releases them with its other leases
    CompletableFuture<?>[] leases =
        record.upstreams().keySet().stream()
            .map(server -> supervisor.acquire(record.id(), server).toCompletableFuture())
            .toArray(CompletableFuture[]::new);
    CompletableFuture.allOf(leases)
        .whenComplete((ready, failure) -> prepare.replyTo().tell(Done.getInstance()));
    return Behaviors.same();
  }

  /** Takes the session of {@code record} over, unless this node holds it already or stops. */
  private void adopt(SessionRecord record) {
    McpEndpoint served = inForce.get().endpoints().get(record.path());
    if (sessions.accepting() && served != null && sessions.routable(record.id()) == null) {
      start(record.id(), served, record.owner(), Kind.SESSION, record);
      sessions
          .routable(record.id())
          .describe(
              record.client().protocolVersion(),
              AdminReport.clientText(record.client().name()),
              AdminReport.clientText(record.client().version()));
      metrics.sessionAdopted();
      context
          .getLog()
          .info(
              "session {} adopted: the node that served it ({}) is gone or stopping",
              SessionIds.redact(record.id()),
              record.home());
    }
  }

  /** Spawns the session {@code id} (adopted from {@code record} unless null) and routes to it. */
  private void start(
      String id, McpEndpoint served, Identity owner, Kind kind, SessionRecord record) {
    if (!owner.isAnonymous()) {
      // before its first call; an adopted session acts as its owner here too, with this node's
      // secrets: no credential travels with a session record
      supervisor.actAs(id, owner.name());
    }
    SessionSpec spec =
        new SessionSpec(
            id,
            inForce.endpointFor(served, owner),
            supervisor,
            settings,
            idleTimeout,
            context.getSelf(),
            new RouteGate(),
            owner,
            replication,
            () -> inForce.get().gateway().sessionLimits().maxInflightPerDownstreamSession());
    ActorRef<DownstreamSession.Command> session =
        context.spawn(
            // a fault while handling one message must not drop the session's streams and leases
            Behaviors.supervise(
                    kind == Kind.LISTEN_STREAM
                        ? ListenSession.create(spec)
                        : DownstreamSession.adopt(spec, record))
                .onFailure(SupervisorStrategy.resume()),
            "session-" + ++spawned);
    context.watchWith(session, new SessionStopped(id));
    sessions.started(new RoutedSession(id, served.path(), owner, session, spec.gate()));
    quota.started(id, SessionQuota.callerOf(owner, null));
    metrics.downstreamSessions(sessions.routableCount());
  }

  private Behavior<Command> onTerminate(Terminate terminate) {
    RoutedSession entry =
        sessions.reachable(terminate.sessionId(), terminate.path(), terminate.caller());
    if (entry == null) {
      terminate.replyTo().tell(Reply.UNKNOWN_SESSION);
      return Behaviors.same();
    }
    end(entry, DownstreamSession.DELETED_BY_CLIENT, terminate.replyTo());
    return Behaviors.same();
  }

  private Behavior<Command> onEndMe(EndMe endMe) {
    RoutedSession entry = sessions.routable(endMe.sessionId());
    if (entry != null) {
      end(entry, endMe.reason(), context.getSystem().ignoreRef());
    }
    return Behaviors.same();
  }

  private void end(RoutedSession entry, String reason, ActorRef<Reply> replyTo) {
    end(entry, reason, false, replyTo);
  }

  private void end(
      RoutedSession entry, String reason, boolean handedOver, ActorRef<Reply> replyTo) {
    context
        .getLog()
        .debug("session {} ends (handed over: {})", SessionIds.redact(entry.id), handedOver);
    sessions.unroute(entry.id);
    metrics.downstreamSessions(sessions.routableCount());
    entry.ref.tell(new DownstreamSession.End(reason, handedOver, replyTo));
  }

  private Behavior<Command> onDescribe(Describe describe) {
    RoutedSession entry = sessions.routable(describe.sessionId());
    if (entry != null) {
      entry.describe(describe.protocolVersion(), describe.clientName(), describe.clientVersion());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onListSessions(ListSessions list) {
    list.replyTo().tell(sessions.listing());
    return Behaviors.same();
  }

  private Behavior<Command> onCloseShown(CloseShown close) {
    List<RoutedSession> shown =
        sessions.routableSessions().stream()
            .filter(session -> SessionIds.redact(session.id).equals(close.shownId()))
            .toList();
    if (shown.size() == 1) {
      end(shown.get(0), close.reason(), context.getSystem().ignoreRef());
    }
    close.replyTo().tell(shown.size() == 1);
    return Behaviors.same();
  }

  private Behavior<Command> onDrain(Drain drain) {
    sessions
        .drain(drain.replyTo())
        .forEach(entry -> entry.ref.tell(new DownstreamSession.Drain(context.getSelf())));
    sessions.replyIfDrained();
    return Behaviors.same();
  }

  private Behavior<Command> onDrained(Drained drained) {
    sessions.drained(drained.sessionId());
    return Behaviors.same();
  }

  private Behavior<Command> onEndAll(EndAll endAll) {
    sessions.endAll(endAll.replyTo());
    sessions
        .routableSessions()
        .forEach(
            // in a cluster the sessions live on: the nodes that stay adopt them from their records
            entry ->
                end(
                    entry,
                    "the gateway is stopping",
                    replication.on(),
                    context.getSystem().ignoreRef()));
    sessions.replyIfAllEnded(true);
    return Behaviors.same();
  }

  private Behavior<Command> onSessionStopped(SessionStopped stopped) {
    RoutedSession routed = sessions.routable(stopped.sessionId());
    sessions.stopped(stopped.sessionId());
    quota.stopped(stopped.sessionId());
    if (routed != null) { // still routed: it stopped without being ended here (it failed)
      metrics.downstreamSessions(sessions.routableCount());
    }
    if (routed != null && !routed.ending()) {
      // only an unexpected failure stops a session whose gate is open
      context
          .getLog()
          .warn("session {} stopped unexpectedly", SessionIds.redact(stopped.sessionId()));
      supervisor.releaseAll(stopped.sessionId());
    }
    sessions.drained(stopped.sessionId());
    sessions.replyIfAllEnded(true);
    return Behaviors.same();
  }

  private Behavior<Command> onIdleTimeoutChanged() {
    replication.rearm();
    return onSweepIdle();
  }

  private Behavior<Command> onSweepIdle() {
    sessions.askIdle();
    nextSweep();
    return Behaviors.same();
  }

  /** The next sweep, a tenth of the idle timeout in force from now (replacing one pending). */
  private void nextSweep() {
    timers.startSingleTimer(SweepIdle.INSTANCE, SessionTable.idleSweepInterval(idleTimeout.get()));
  }
}
