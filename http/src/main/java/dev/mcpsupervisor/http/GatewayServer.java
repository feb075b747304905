package dev.mcpsupervisor.http;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.Asks;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.base.SupervisorSettings;
import dev.mcpsupervisor.actors.cluster.Membership;
import dev.mcpsupervisor.http.access.CallerIdentity;
import dev.mcpsupervisor.http.access.RequestHeaderDeadline;
import dev.mcpsupervisor.http.access.SessionIdSeal;
import dev.mcpsupervisor.http.access.StreamQuota;
import dev.mcpsupervisor.http.cluster.AdminDesk;
import dev.mcpsupervisor.http.cluster.NodeDesk;
import dev.mcpsupervisor.http.endpoint.InForce;
import dev.mcpsupervisor.http.ops.ConfigReloader;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import dev.mcpsupervisor.http.ops.Readiness;
import dev.mcpsupervisor.http.routes.AdminActions;
import dev.mcpsupervisor.http.routes.AdminRoutes;
import dev.mcpsupervisor.http.routes.GatewayRoutes;
import dev.mcpsupervisor.http.routes.McpRoutes;
import dev.mcpsupervisor.http.routes.OpsRoutes;
import dev.mcpsupervisor.http.session.DownstreamSessions;
import dev.mcpsupervisor.http.session.SessionDirectory;
import dev.mcpsupervisor.http.session.SessionReplicas;
import dev.mcpsupervisor.http.stateless.PendingRounds;
import dev.mcpsupervisor.http.stateless.ServerOffers;
import dev.mcpsupervisor.http.stateless.StatelessRequest;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.RemoteAddress;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.stream.Materializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's HTTP server: binding and lifecycle only. It binds on the supervisor's actor system,
 * so one coordinated shutdown covers both; or, for a front in the same JVM, takes its requests from
 * that front alone ({@link #startInThisJvm}, {@link #handle}), with no port.
 */
public final class GatewayServer {

  private static final Logger log = LoggerFactory.getLogger(GatewayServer.class);

  /** Ending every session (releasing its leases) at stop takes at most this long. */
  private static final Duration END_SESSIONS_TIMEOUT = Duration.ofSeconds(15);

  /** Beyond the drain deadline, how long connections still busy get before they are closed. */
  private static final Duration CLOSE_CONNECTIONS_DEADLINE = Duration.ofSeconds(1);

  private static final Duration ANSWER_TIMEOUT_MARGIN = Duration.ofSeconds(30);

  /** Several gateways may share one actor system (tests); each registry needs its own name. */
  private static final AtomicLong INSTANCES = new AtomicLong();

  private final Listener listener;

  /** The routes the listener serves, as a function: {@link #handle}. */
  private final Function<HttpRequest, CompletionStage<HttpResponse>> routes;

  private final ActorRef<DownstreamSessions.Command> sessions;

  /** Whose kept contexts (the stateless callers' identity contexts) a stop releases. */
  private final SessionSupervisor supervisor;

  /** This node's desk in a cluster, or null. */
  private final ActorRef<NodeDesk.Command> desk;

  private final ActorSystem<?> system;
  private final McpRoutes mcp;
  private final AdminRoutes admin;
  private final Readiness readiness;
  private final AtomicReference<CompletionStage<Void>> stopping = new AtomicReference<>();

  private GatewayServer(
      Listener listener,
      Function<HttpRequest, CompletionStage<HttpResponse>> routes,
      ActorRef<DownstreamSessions.Command> sessions,
      SessionSupervisor supervisor,
      ActorRef<NodeDesk.Command> desk,
      ActorSystem<?> system,
      McpRoutes mcp,
      AdminRoutes admin,
      Readiness readiness) {
    this.listener = listener;
    this.routes = routes;
    this.desk = desk;
    this.sessions = sessions;
    this.supervisor = supervisor;
    this.system = system;
    this.mcp = mcp;
    this.admin = admin;
    this.readiness = readiness;
  }

  /**
   * Binds the MCP, probe, metrics and admin endpoints on {@code config.host():config.port()} (port
   * 0: any free).
   */
  public static CompletionStage<GatewayServer> start(
      SessionSupervisor supervisor, GatewayConfig config, GatewayMetrics metrics) {
    return start(
        supervisor,
        config,
        metrics,
        new ConfigReloader(null, supervisor, metrics, ConfigReloader.BUILT_IN),
        CompletableFuture.completedFuture(null));
  }

  /**
   * {@link #start(SessionSupervisor, GatewayConfig, GatewayMetrics)} for the application: it
   * reloads its configuration with {@code reloader} ({@code POST /admin/reload}) and warms up after
   * the bind: it serves from the bind, and {@code /readyz} says {@code warming} until {@code
   * warmedUp} completes.
   */
  public static CompletionStage<GatewayServer> start(
      SessionSupervisor supervisor,
      GatewayConfig config,
      GatewayMetrics metrics,
      ConfigReloader reloader,
      CompletionStage<?> warmedUp) {
    return start(supervisor, config, metrics, reloader, warmedUp, Listener::bind);
  }

  /**
   * {@link #start(SessionSupervisor, GatewayConfig, GatewayMetrics, ConfigReloader,
   * CompletionStage)} with no port: its requests come from a front in this JVM ({@link #handle}),
   * which spares it the socket and Pekko HTTP's bind (which reads the JDK's trust store even for
   * plain HTTP). {@link #address()} is {@code config}'s host, port 0.
   */
  public static CompletionStage<GatewayServer> startInThisJvm(
      SessionSupervisor supervisor,
      GatewayConfig config,
      GatewayMetrics metrics,
      ConfigReloader reloader) {
    return start(
        supervisor,
        config,
        metrics,
        reloader,
        CompletableFuture.completedFuture(null),
        Listener::inThisJvm);
  }

  private static CompletionStage<GatewayServer> start(
      SessionSupervisor supervisor,
      GatewayConfig config,
      GatewayMetrics metrics,
      ConfigReloader reloader,
      CompletionStage<?> warmedUp,
      Listen listen) {
    ActorSystem<?> system = supervisor.actorSystem();
    metrics.initServers(supervisor.config().servers().keySet());
    GatewaySettings settings =
        GatewaySettings.fromConfig(system.settings().config())
            .inCluster(config.cluster(), system.settings().config());
    InForce inForce =
        new InForce(
            supervisor.config(),
            config,
            settings,
            version(),
            metrics,
            system.dispatchers().lookup(DispatcherSelector.blocking()));
    Supplier<Duration> idleTimeout = () -> inForce.get().gateway().sessionIdleTimeout();
    SessionDirectory directory = new SessionDirectory();
    long instance = INSTANCES.incrementAndGet();
    Membership membership = supervisor.membership();
    // in a cluster, every session's protocol state is replicated: another node goes on serving it
    CompletionStage<SessionReplicas.Replication> replication =
        membership.clustered()
            ? supervisor
                .spawn(
                    SessionReplicas.create(membership, idleTimeout),
                    "mcp-gateway-session-replicas-" + instance)
                .thenApply(
                    replicas -> new SessionReplicas.Replication(membership.selfNode(), replicas))
            : CompletableFuture.completedFuture(SessionReplicas.Replication.NONE);
    CompletionStage<ActorRef<DownstreamSessions.Command>> sessions =
        replication.thenCompose(
            replicated ->
                supervisor.spawn(
                    Behaviors.supervise(
                            DownstreamSessions.create(
                                supervisor,
                                inForce,
                                settings,
                                idleTimeout,
                                metrics,
                                directory,
                                replicated))
                        .onFailure(SupervisorStrategy.resume()),
                    "mcp-gateway-sessions-" + instance));
    PendingRounds pending =
        new PendingRounds(membership.clustered() ? membership.selfNode() : null);
    return sessions
        .thenApply(
            registry ->
                new StatelessRequest.Gateway(
                    supervisor, settings, system.scheduler(), new ServerOffers(), pending))
        .thenCompose(
            stateless ->
                sessions.thenCompose(
                    registry ->
                        // in a cluster, a request may land on a node that does not hold its
                        // session or its round: the nodes' desks carry it there
                        (membership.clustered()
                                ? supervisor.spawn(
                                    NodeDesk.create(
                                        new NodeDesk.Served(
                                            membership,
                                            directory,
                                            registry,
                                            replication.toCompletableFuture().join().replicas(),
                                            pending,
                                            SessionIdSeal.of(config.cluster()))),
                                    NodeDesk.name(instance, membership.selfNode()))
                                : CompletableFuture.<ActorRef<NodeDesk.Command>>completedFuture(
                                    null))
                            .thenCompose(
                                desk -> {
                                  AdminActions actions =
                                      new AdminActions(
                                          supervisor,
                                          registry,
                                          metrics,
                                          system.scheduler(),
                                          reloader);
                                  // in a cluster, the operations page shows every member: their
                                  // admin desks answer for them
                                  return (membership.clustered()
                                          ? supervisor.spawn(
                                              AdminDesk.create(membership.selfAddress(), actions),
                                              "mcp-gateway-admin-desk-" + instance)
                                          : CompletableFuture
                                              .<ActorRef<AdminDesk.Command>>completedFuture(null))
                                      .thenCompose(
                                          adminDesk ->
                                              serve(
                                                  supervisor,
                                                  config,
                                                  metrics,
                                                  settings,
                                                  registry,
                                                  directory,
                                                  inForce,
                                                  stateless,
                                                  desk,
                                                  actions,
                                                  adminDesk,
                                                  reloader,
                                                  warmedUp,
                                                  listen));
                                })));
  }

  private static CompletionStage<GatewayServer> serve(
      SessionSupervisor supervisor,
      GatewayConfig config,
      GatewayMetrics metrics,
      GatewaySettings settings,
      ActorRef<DownstreamSessions.Command> sessions,
      SessionDirectory directory,
      InForce inForce,
      StatelessRequest.Gateway stateless,
      ActorRef<NodeDesk.Command> desk,
      AdminActions actions,
      ActorRef<AdminDesk.Command> adminDesk,
      ConfigReloader reloader,
      CompletionStage<?> warmedUp,
      Listen listen) {
    ActorSystem<?> system = supervisor.actorSystem();
    Membership membership = supervisor.membership();
    Readiness readiness = new Readiness(membership::isUp, warmedUp);
    McpRoutes mcp =
        new McpRoutes(
            sessions,
            directory,
            Materializer.matFromSystem(system),
            settings,
            metrics,
            answerTimeout(system, supervisor),
            stateless,
            inForce,
            new CallerIdentity(settings.agentIdHeader()),
            readiness,
            desk);
    OpsRoutes ops = new OpsRoutes(supervisor, metrics, readiness);
    AdminRoutes admin =
        new AdminRoutes(
            actions,
            adminDesk,
            membership.selfAddress(),
            metrics,
            system.scheduler(),
            mcp.streamQuota(),
            () -> inForce.get().authentication(),
            reloader);
    // the next request is served by the new configuration; then the clients of sessions whose
    // lists may differ are told, as by a server itself, so that they list again under it
    reloader.onApplied(
        (applied, change) -> {
          metrics.initServers(change.added());
          Duration idleBefore = inForce.get().gateway().sessionIdleTimeout();
          inForce.apply(applied);
          if (!idleBefore.equals(inForce.get().gateway().sessionIdleTimeout())) {
            sessions.tell(DownstreamSessions.IdleTimeoutChanged.INSTANCE);
          }
          List<String> listed = new ArrayList<>(change.retired());
          listed.addAll(change.added());
          if (!listed.isEmpty()) {
            sessions.tell(new DownstreamSessions.ServersChanged(listed));
          }
        });
    Route route = new GatewayRoutes(inForce, ops, admin, mcp).route();
    return listen
        .on(supervisor, config, route)
        .thenApply(
            listener -> {
              readiness.ready();
              return new GatewayServer(
                  listener,
                  route.handler(system),
                  sessions,
                  supervisor,
                  desk,
                  system,
                  mcp,
                  admin,
                  readiness);
            });
  }

  /**
   * No request timeout (every upstream call has its own deadline, and SSE streams are long), and an
   * idle timeout longer than the longest request timeout, so a slow JSON answer is never cut off;
   * slow or idle clients are bounded by {@link RequestHeaderDeadline} instead. The client's address
   * is kept on each request (who an unauthenticated caller is, for {@link StreamQuota}).
   */
  private static ServerSettings serverSettings(
      ActorSystem<?> system, SessionSupervisor supervisor, GatewayConfig config) {
    Duration idle = max(longestRequestTimeout(supervisor).plusMinutes(1), Duration.ofMinutes(2));
    return serverSettings(
        system.settings().config(), idle, config.connectionLimits().maxConnections());
  }

  /**
   * Pekko's server settings from the system's config, with ours on top: also the accept backlog,
   * from {@code mcp-supervisor.http.acceptBacklog} (a {@code pekko.http.server.backlog} in our
   * reference.conf loses to Pekko's own default in the jar's merged file).
   */
  static ServerSettings serverSettings(Config systemConfig, Duration idle, int maxConnections) {
    int backlog =
        systemConfig
            .withFallback(ConfigFactory.defaultReference())
            .getInt(GatewaySettings.PATH + ".acceptBacklog");
    if (backlog <= 0) {
      throw new IllegalArgumentException(
          GatewaySettings.PATH + ".acceptBacklog must be greater than zero, got " + backlog);
    }
    Config overrides =
        ConfigFactory.parseString(
            "pekko.http.server.request-timeout = infinite\n"
                + "pekko.http.server.idle-timeout = "
                + idle.toMillis()
                + "ms\n"
                + "pekko.http.server.max-connections = "
                + maxConnections
                + "\n"
                + "pekko.http.server.backlog = "
                + backlog
                + "\n"
                + "pekko.http.server.remote-address-attribute = on\n");
    return ServerSettings.create(overrides.withFallback(systemConfig));
  }

  /**
   * Longer than any upstream call or acquire can take: a safety net for an exchange nobody answers.
   */
  private static Duration answerTimeout(ActorSystem<?> system, SessionSupervisor supervisor) {
    Duration acquire = SupervisorSettings.fromConfig(system.settings().config()).acquireTimeout();
    return max(longestRequestTimeout(supervisor), acquire).plus(ANSWER_TIMEOUT_MARGIN);
  }

  private static Duration longestRequestTimeout(SessionSupervisor supervisor) {
    return supervisor.config().servers().values().stream()
        .map(ServerConfig::requestTimeout)
        .max(Duration::compareTo)
        .orElse(Duration.ZERO);
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static String version() {
    String version = GatewayServer.class.getPackage().getImplementationVersion();
    return version != null ? version : "0.1.0";
  }

  /**
   * In a cluster, ends the exchanges still served on other nodes ({@link NodeDesk.Abandon}) and
   * those of this node's sessions, which live on at the nodes that stay (each request still in
   * flight is answered the retryable "send it again"), and waits until those are written: closing
   * the connections would cut them.
   */
  private CompletionStage<Void> abandonPassedOn() {
    if (desk == null) {
      return CompletableFuture.completedFuture(null);
    }
    return Asks.<NodeDesk.Command, Done>ask(
            desk,
            NodeDesk.Abandon::new,
            CLOSE_CONNECTIONS_DEADLINE,
            system.scheduler(),
            timedOut -> Done.getInstance())
        .thenCompose(
            told -> {
              // the sessions answer at once; their leases are released after (EndAll, below)
              sessions.tell(new DownstreamSessions.EndAll(system.ignoreRef()));
              return mcp.responsesWritten(CLOSE_CONNECTIONS_DEADLINE);
            });
  }

  /** What is left until {@code deadline} ({@link System#nanoTime}), at least a millisecond. */
  private static Duration left(long deadline) {
    return Duration.ofNanos(Math.max(Duration.ofMillis(1).toNanos(), deadline - System.nanoTime()));
  }

  /**
   * Serves {@code request} in this JVM, as a bound port serves one that came over a loopback
   * connection (the same routes, checks and answers), without a connection: for a front in the same
   * process (the stdio front). Its {@code Host} is the caller's to set, as a client's is.
   */
  public CompletionStage<HttpResponse> handle(HttpRequest request) {
    try {
      return routes.apply(request.addAttribute(AttributeKeys.remoteAddress, LOOPBACK));
    } catch (Exception e) { // the sealed routes answer failures themselves; this is Pekko's own
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Where a request {@link #handle}d in this JVM comes from. */
  private static final RemoteAddress LOOPBACK =
      RemoteAddress.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));

  /**
   * The bound address (with the real port when port 0 was asked); port 0 when it serves this JVM
   * only ({@link #startInThisJvm}).
   */
  public InetSocketAddress address() {
    return listener.address();
  }

  /** How the gateway takes its requests: {@link Listener#bind} or {@link Listener#inThisJvm}. */
  @FunctionalInterface
  private interface Listen {
    CompletionStage<Listener> on(SessionSupervisor supervisor, GatewayConfig config, Route route);
  }

  /** Where requests come from: a bound port, or a front in this JVM only. */
  private sealed interface Listener {

    InetSocketAddress address();

    /** Takes no more connections, and closes those open after {@code deadline}. */
    CompletionStage<Void> close(Duration deadline);

    static CompletionStage<Listener> bind(
        SessionSupervisor supervisor, GatewayConfig config, Route route) {
      ActorSystem<?> system = supervisor.actorSystem();
      return Http.get(system)
          .newServerAt(config.host(), config.port())
          .withSettings(serverSettings(system, supervisor, config))
          .bindFlow(
              RequestHeaderDeadline.around(
                  route.flow(system), config.connectionLimits().requestHeaderTimeout()))
          .thenApply(
              binding -> {
                log.info("gateway listening on {}", binding.localAddress());
                return new Bound(binding);
              });
    }

    static CompletionStage<Listener> inThisJvm(
        SessionSupervisor supervisor, GatewayConfig config, Route route) {
      log.info("gateway serving this JVM's front only, on no port");
      return CompletableFuture.completedFuture(
          new InThisJvm(InetSocketAddress.createUnresolved(config.host(), 0)));
    }
  }

  private record Bound(ServerBinding binding) implements Listener {
    @Override
    public InetSocketAddress address() {
      return binding.localAddress();
    }

    @Override
    public CompletionStage<Void> close(Duration deadline) {
      return binding
          .unbind()
          .thenCompose(unbound -> binding.terminate(deadline))
          .thenApply(closed -> null);
    }
  }

  private record InThisJvm(InetSocketAddress address) implements Listener {
    @Override
    public CompletionStage<Void> close(Duration deadline) {
      return CompletableFuture.completedFuture(null);
    }
  }

  /**
   * Stops taking requests — from here on new ones are answered 503 and {@code /readyz} says
   * stopping, while the listener stays bound so clients get that clear answer — closes GET streams,
   * lets in-flight requests finish up to {@code drainDeadline} (until their responses are written,
   * not only answered), then unbinds, closes the connections and only then ends every downstream
   * session (releasing its leases). Idempotent.
   */
  public CompletionStage<Void> stop(Duration drainDeadline) {
    CompletionStage<Void> stop = stopping.get();
    if (stop != null) {
      return stop;
    }
    Duration drain =
        drainDeadline.isNegative() || drainDeadline.isZero() ? Duration.ofMillis(1) : drainDeadline;
    readiness.stopping();
    admin.stop(); // the operations page's feeds never end on their own
    // the sessions close their GET streams (which never end) and answer what is in flight, and
    // only then are the connections terminated: Pekko's termination cuts a response that is
    // already streaming (an SSE answer), so it must not start before those are answered
    // in a cluster, the sessions this node serves go on at the nodes that stay: first its desk
    // passes their requests on, then the sessions drain what they took before
    // the drain deadline covers it all: the hand-over, the drain, the last frames
    long deadline = System.nanoTime() + drain.toNanos();
    CompletionStage<Done> handedOver =
        desk == null
            ? CompletableFuture.completedFuture(Done.getInstance())
            : Asks.<NodeDesk.Command, Done>ask(
                desk,
                replyTo -> new NodeDesk.Leave(drain, replyTo),
                drain,
                system.scheduler(),
                timedOut -> Done.getInstance());
    CompletionStage<Void> started =
        handedOver
            .thenCompose(
                passedOn ->
                    Asks.<DownstreamSessions.Command, Done>ask(
                        sessions,
                        DownstreamSessions.Drain::new,
                        left(deadline),
                        system.scheduler(),
                        timedOut -> Done.getInstance()))
            // answered is not yet written: the last frames of a streamed answer are on their way
            .thenCompose(exchangesAnswered -> mcp.responsesWritten(left(deadline)))
            // in a cluster, a round parked here is retried through another node's desk: its call
            // completes here if its client answers within the drain
            .thenCompose(
                written ->
                    desk == null
                        ? CompletableFuture.<Void>completedFuture(null)
                        : mcp.roundsSettled(left(deadline)))
            // what another node still serves for this one at the deadline ends with an error on
            // its stream, written before the connections close (closing would cut it)
            .thenCompose(written -> abandonPassedOn())
            .thenCompose(written -> listener.close(CLOSE_CONNECTIONS_DEADLINE))
            .thenCompose(
                closed -> {
                  mcp.abandonRounds();
                  return Asks.<DownstreamSessions.Command, Done>ask(
                      sessions,
                      DownstreamSessions.EndAll::new,
                      END_SESSIONS_TIMEOUT,
                      system.scheduler(),
                      timedOut -> Done.getInstance());
                })
            // the stateless callers' identity contexts, in use or not
            .thenCompose(
                ended -> supervisor.releaseKeptContexts().exceptionally(notConfirmed -> null));
    return stopping.compareAndSet(null, started) ? started : stopping.get();
  }
}
