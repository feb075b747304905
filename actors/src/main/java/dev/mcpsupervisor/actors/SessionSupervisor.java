package dev.mcpsupervisor.actors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.base.ConfigChange;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.base.SupervisorObserver;
import dev.mcpsupervisor.actors.base.SupervisorSettings;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.actors.call.CallOptions;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.actors.call.RoundTripCall;
import dev.mcpsupervisor.actors.cluster.ClusterNodes;
import dev.mcpsupervisor.actors.cluster.Membership;
import dev.mcpsupervisor.actors.delivery.CallerKind;
import dev.mcpsupervisor.actors.delivery.ContextListener;
import dev.mcpsupervisor.actors.key.KeyRouter;
import dev.mcpsupervisor.actors.key.LeaseDirectory;
import dev.mcpsupervisor.actors.key.SupervisorGuardian;
import dev.mcpsupervisor.actors.telemetry.McpTelemetry;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.upstream.DefaultConnectors;
import dev.mcpsupervisor.upstream.UpstreamConnector;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.slf4j.LoggerFactory;

/**
 * The embedding API: shares upstream MCP sessions safely among many concurrent callers. No Pekko
 * types in its signatures except {@link #spawn} and {@link #actorSystem()}, which in-process
 * integrations (the HTTP gateway) use to run their actors and bind on the same system.
 *
 * <p>A <em>context</em> is who holds a lease (a flow run id, a downstream session id). A context
 * holds at most one lease per server; {@link #request} acquires it on first use; {@link #release}
 * and {@link #releaseAll} end it.
 *
 * <p>Every stage returned completes — with a result, or with a JSON-RPC error response (never
 * exceptionally for an upstream failure): timeouts, lost sessions, open circuits and unknown
 * servers are error responses with the codes in {@code JsonRpcErrorCodes}. Cancelling the stage of
 * {@link #request} (via {@code toCompletableFuture().cancel(..)}) sends {@code
 * notifications/cancelled} upstream and frees the pending entry.
 *
 * <p>Stages complete on the supervisor's threads: callbacks must not block (use the {@code *Async}
 * variants for heavy work).
 */
public final class SessionSupervisor implements AutoCloseable {

  /**
   * Pekko's settings of the supervisor's own actor system, in the actors module's reference.conf.
   */
  private static final String OWN_PEKKO_SETTINGS = "mcp-supervisor.supervisor-pekko";

  private final ActorSystem<SupervisorGuardian.Command> system;

  /** Every call goes here: the router of server keys, a child of the {@link SupervisorGuardian}. */
  private final ActorRef<KeyRouter.Command> router;

  /** The configuration calls are made by: replaced by {@link #reconfigure}. */
  private volatile SupervisorConfig config;

  private final SupervisorSettings settings;

  /**
   * Where a context's leased calls go without the router (the key actor of its lease), written by
   * the router; held here before a change of a context's routing is told to it.
   */
  private final LeaseDirectory leases;

  /** The asks of the router behind {@link #request}, {@link #acquire}, releases and snapshots. */
  private final RouterAsks asks;

  /** Where the caller's trace context is taken from (into {@code params._meta}). */
  private final McpTelemetry telemetry;

  private final Membership membership;

  /** Call ids only name calls (for cancellation and timers); they hold no state. */
  private final AtomicLong callIds = new AtomicLong();

  private SessionSupervisor(
      ActorSystem<SupervisorGuardian.Command> system,
      ActorRef<KeyRouter.Command> router,
      LeaseDirectory leases,
      SupervisorConfig config,
      SupervisorSettings settings,
      McpTelemetry telemetry,
      Membership membership) {
    this.telemetry = telemetry;
    this.membership = membership;
    this.system = system;
    this.router = router;
    this.config = config;
    this.settings = settings;
    this.leases = leases;
    this.asks = new RouterAsks(system, router, leases, settings);
  }

  /**
   * Starts a supervisor on its own actor system with the real connectors (stdio, Streamable HTTP,
   * SSE).
   */
  public static SessionSupervisor start(SupervisorConfig config) {
    return start(config, DefaultConnectors.create(), SupervisorObserver.NONE);
  }

  /** Starts a supervisor with the given connector and observer (tests, metrics). */
  public static SessionSupervisor start(
      SupervisorConfig config, UpstreamConnector connector, SupervisorObserver observer) {
    return start(config, connector, observer, ConfigFactory.load());
  }

  /**
   * Starts a supervisor on an actor system built from the given Typesafe configuration (which must
   * include the defaults, e.g. {@code ConfigFactory.load()} or a config with it as fallback);
   * traces with the global OpenTelemetry once the application installs an SDK there.
   */
  public static SessionSupervisor start(
      SupervisorConfig config,
      UpstreamConnector connector,
      SupervisorObserver observer,
      Config actorSystemConfig) {
    return start(config, connector, observer, actorSystemConfig, McpTelemetry.global());
  }

  /**
   * Starts a supervisor that traces its upstream requests with {@code telemetry} ({@link
   * McpTelemetry#OFF}: not at all).
   *
   * @throws IllegalStateException when {@code gateway.cluster} is set and {@code
   *     mcp-supervisor-cluster} is not on the classpath (see {@link ClusterNodes})
   */
  public static SessionSupervisor start(
      SupervisorConfig config,
      UpstreamConnector connector,
      SupervisorObserver observer,
      Config actorSystemConfig,
      McpTelemetry telemetry) {
    // SLF4J set up here, before the actor system's threads race to log: else it warns that it
    // replays their first lines
    LoggerFactory.getILoggerFactory();
    SupervisorSettings settings = SupervisorSettings.fromConfig(actorSystemConfig);
    // the drain and closing every session must fit in the phase that runs them
    Config withPhaseTimeout =
        ConfigFactory.parseString(
                "pekko.coordinated-shutdown.phases.service-stop.timeout = "
                    + (settings.shutdownBound().toMillis() + 2_000)
                    + "ms")
            .withFallback(actorSystemConfig.getConfig(OWN_PEKKO_SETTINGS))
            .withFallback(actorSystemConfig);
    // an embedding without a gateway section is a single node
    ClusterConfig cluster = config.gateway() == null ? null : config.gateway().cluster();
    ClusterNodes nodes = cluster == null ? null : ClusterNodes.load();
    LeaseDirectory leases = new LeaseDirectory();
    ActorSystem<SupervisorGuardian.Command> system =
        ActorSystem.create(
            SupervisorGuardian.create(config, settings, connector, observer, telemetry, leases),
            nodes == null ? ClusterNodes.SYSTEM_NAME : nodes.systemName(cluster),
            nodes == null ? withPhaseTimeout : nodes.actorSystemConfig(cluster, withPhaseTimeout));
    ActorRef<KeyRouter.Command> router;
    try {
      router =
          Asks.<SupervisorGuardian.Command, ActorRef<KeyRouter.Command>>ask(
                  system,
                  SupervisorGuardian.GetRouter::new,
                  settings.acquireTimeout(),
                  system.scheduler())
              .get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      system.terminate();
      throw new IllegalStateException("interrupted while the supervisor started", e);
    } catch (ExecutionException e) {
      system.terminate();
      throw new IllegalStateException(
          "the supervisor did not start: " + e.getCause(), e.getCause());
    }
    SessionSupervisor supervisor =
        new SessionSupervisor(
            system,
            router,
            leases,
            config,
            settings,
            telemetry,
            nodes == null ? Membership.SINGLE_NODE : nodes.membership(system));
    CoordinatedShutdown.get(system)
        .addTask(
            CoordinatedShutdown.PhaseServiceStop(),
            "close-upstream-sessions",
            () ->
                Asks.<KeyRouter.Command, Done>ask(
                    router,
                    KeyRouter.Shutdown::new,
                    settings.shutdownBound().plusSeconds(1),
                    system.scheduler(),
                    failure -> Done.getInstance()));
    return supervisor;
  }

  /** How this supervisor traces: the gateway's SERVER spans use the same. */
  public McpTelemetry telemetry() {
    return telemetry;
  }

  /**
   * Sends one request to a server for a context and answers with the upstream's response (its id is
   * the upstream's business: callers put their own id back). {@code params._meta.progressToken}, if
   * any, is the caller's own: progress comes back to the context's {@link ContextListener} with
   * that token.
   *
   * @param deadline null for the server's configured {@code requestTimeout}
   */
  public CompletionStage<JsonRpcResponse> request(
      String context, String server, String method, JsonNode params, Duration deadline) {
    return request(context, server, method, params, deadline, null);
  }

  /**
   * {@link #request(String, String, String, JsonNode, Duration)} with a tag of the caller's own for
   * this call: the context's {@link ContextListener} gets it back with the notifications and
   * server-to-client requests related to the call (e.g. the gateway's downstream request, to pick
   * that request's response stream).
   */
  public CompletionStage<JsonRpcResponse> request(
      String context,
      String server,
      String method,
      JsonNode params,
      Duration deadline,
      String tag) {
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(method, "method");
    long callId = callIds.incrementAndGet();
    ServerConfig serverConfig = config.servers().get(server);
    if (serverConfig == null) {
      return CompletableFuture.completedFuture(
          JsonRpcResponse.failure(
              LongNode.valueOf(callId), SupervisorErrors.unknownServer(server)));
    }
    Duration effectiveDeadline = deadline != null ? deadline : serverConfig.requestTimeout();
    return asks.request(
        context,
        server,
        callId,
        method,
        telemetry.withCallerContext(params),
        effectiveDeadline,
        tag);
  }

  /**
   * Sends one request the way a MCP 2026-07-28 client does: the options say which server requests
   * the caller answers, which logs it wants and how long it waits. Completes with {@link
   * CallOutcome.Complete} (the answer, or a JSON-RPC error as {@link #request} gives), or with
   * {@link CallOutcome.InputRequired} when the upstream asks the caller something during the call
   * (sampling, elicitation, roots it declared): the call waits upstream, under its deadline, for
   * {@link CallOutcome.InputRequired#answer} or {@link CallOutcome.InputRequired#cancel}. A server
   * request the caller did not declare a capability for is refused upstream with a JSON-RPC error
   * (-32009); the call goes on. Everything concerning this call goes to this call only — its server
   * requests, progress and logs — never to the context's {@link ContextListener}.
   *
   * <p>{@code options.logLevel()} is also sent upstream in {@code
   * params._meta["io.modelcontextprotocol/logLevel"]} (a 2026-07-28 upstream logs by it; a
   * session-era one ignores it and logs at its session's level). Without a log level the call gets
   * no logs. Cancelling a returned stage cancels the call, as {@code cancel()} does.
   */
  public CompletionStage<CallOutcome> call(
      String context, String server, String method, JsonNode params, CallOptions options) {
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(options, "options");
    long callId = callIds.incrementAndGet();
    ServerConfig serverConfig = config.servers().get(server);
    if (serverConfig == null || asks.isTerminated()) {
      JsonRpcResponse refused =
          JsonRpcResponse.failure(
              LongNode.valueOf(callId),
              serverConfig == null
                  ? SupervisorErrors.unknownServer(server)
                  : SupervisorErrors.shuttingDown());
      return CompletableFuture.completedFuture(new CallOutcome.Complete(refused));
    }
    Duration deadline =
        options.deadline() != null ? options.deadline() : serverConfig.requestTimeout();
    JsonNode sent =
        StatelessEnvelope.withLogLevel(telemetry.withCallerContext(params), options.logLevel());
    return RoundTripCall.start(
        router,
        settings,
        new RoundTripCall.Call(
            context,
            server,
            callId,
            method,
            sent,
            deadline,
            options.caller(),
            serverConfig.isolation()),
        options);
  }

  /**
   * Forwards a client notification (e.g. roots/list_changed) to the session serving this context. A
   * server-to-client request the session then gets with no call in flight (roots/list) goes to this
   * context's listener.
   */
  public void notify(String context, String server, String method, JsonNode params) {
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(method, "method");
    if (!leases.notify(context, server, method, params)) {
      router.tell(new KeyRouter.Notify(context, server, method, params));
    }
  }

  /**
   * Takes a lease for the context on the server (starting a session if needed). Completes when the
   * session is ready, with the upstream's {@code initialize} result (protocolVersion, capabilities,
   * serverInfo, instructions); fails with {@link SupervisorException} (carrying the JSON-RPC error)
   * when the server is unknown or cannot be reached.
   */
  public CompletionStage<JsonNode> acquire(String context, String server) {
    return acquire(context, server, CallerKind.LEASED);
  }

  /**
   * {@link #acquire(String, String)} for a caller of this kind: {@link CallerKind#LEASED}, or
   * {@link CallerKind#STATELESS_IN_CONTEXT} for a context its calls keep (its lease then ends with
   * the context, {@code gateway.sessionIdleTimeout} after its last call).
   *
   * @throws IllegalArgumentException for a leaseless kind: an acquire is a lease
   */
  public CompletionStage<JsonNode> acquire(String context, String server, CallerKind caller) {
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(server, "server");
    if (caller.leaseless()) {
      throw new IllegalArgumentException("an acquire is a lease, not a " + caller + " caller's");
    }
    return asks.acquire(context, server, caller);
  }

  /**
   * Ends the context's lease on the server. Idempotent. Completes once the lease is gone; fails
   * with {@link SupervisorException} when that cannot be confirmed in time (a timeout is never
   * reported as done).
   */
  public CompletionStage<Void> release(String context, String server) {
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(server, "server");
    leases.hold(context); // its next calls go through the router, after this release
    return asks.<Done>confirmed(
            "release of " + server + " for " + context,
            replyTo -> new KeyRouter.Release(context, server, replyTo),
            settings.acquireTimeout())
        .thenApply(done -> null);
  }

  /**
   * Ends every lease the context holds and forgets its listener. Idempotent. Fails with {@link
   * SupervisorException} when that cannot be confirmed in time.
   */
  public CompletionStage<Void> releaseAll(String context) {
    Objects.requireNonNull(context, "context");
    leases.hold(context);
    return asks.<Done>confirmed(
            "release of every lease of " + context,
            replyTo -> new KeyRouter.ReleaseAll(context, replyTo),
            settings.acquireTimeout())
        .thenApply(done -> null);
  }

  /**
   * Ends the leases of every context its calls keep ({@link CallerKind#STATELESS_IN_CONTEXT}), in
   * use or not: the gateway stops serving their callers. A call of such a context made after this
   * keeps a new one. Fails with {@link SupervisorException} when that cannot be confirmed in time.
   */
  public CompletionStage<Void> releaseKeptContexts() {
    return asks.<Done>confirmed(
            "release of every kept context", KeyRouter.ReleaseKept::new, settings.acquireTimeout())
        .thenApply(done -> null);
  }

  /**
   * Routes notifications and server-to-client requests for this context to the listener (replacing
   * any earlier). While a listener is registered, every notification a session sends the context
   * before a call's answer reaches the listener before that call's stage completes.
   */
  public void register(String context, ContextListener listener) {
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(listener, "listener");
    // its next calls go through the router, after the listener: their answers go through it
    leases.hold(context);
    router.tell(new KeyRouter.Register(context, listener));
  }

  /**
   * The context's calls act as {@code identity} (a name of {@code gateway.identities}): a server
   * whose headers name the caller ({@code "Bearer ${identity:NAME}"}) is reached with that
   * identity's values from {@code gateway.identitySecrets}, in upstream sessions of that identity
   * only. A context that acts as no one gets an error from such a server. Holds until {@link
   * #releaseAll}; calls made after this returns act so.
   */
  public void actAs(String context, String identity) {
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(identity, "identity");
    router.tell(new KeyRouter.ActAs(context, identity, null, CallerKind.LEASED));
  }

  /**
   * {@link #actAs(String, String)}, and a server of {@code passCallerToken: true} is reached with
   * {@code token}, the bearer token the context's caller presented (in upstream sessions of that
   * token only). Told again with each request, so that a refreshed token takes over.
   */
  public void actAs(String context, String identity, String token) {
    actAs(context, identity, token, CallerKind.LEASED);
  }

  /**
   * {@link #actAs(String, String, String)} for a caller of this kind: {@link CallerKind#LEASED}, or
   * {@link CallerKind#STATELESS_IN_CONTEXT} for a context its calls keep, which this keeps too (for
   * {@code gateway.sessionIdleTimeout} if no call of it is in flight, so that whom it acts as is
   * forgotten even if none follows).
   */
  public void actAs(String context, String identity, String token, CallerKind caller) {
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(caller, "caller");
    router.tell(new KeyRouter.ActAs(context, identity, token, caller));
  }

  /**
   * Every key's sessions and leases as they are now. Fails with {@link SupervisorException} when
   * the supervisor does not answer in time: an empty snapshot would pass a "nothing leased" check
   * vacuously.
   */
  public CompletionStage<SupervisorSnapshot> snapshot() {
    return asks.confirmed(
        "snapshot", KeyRouter.GetSnapshot::new, settings.snapshotTimeout().multipliedBy(2));
  }

  /**
   * Restarts one upstream session as a transport failure would (a stdio server's process is
   * replaced; the session's calls wait for the new connection): {@code keyId} and {@code sessionId}
   * as the {@link #snapshot() snapshot} shows them. Completes with false when there is no such
   * session, or it is not ready (nothing to restart). {@code reason} (who asked, and why) is the
   * detail of its {@code RESTART_REQUESTED} event, and its last loss.
   */
  public CompletionStage<Boolean> restartSession(String keyId, long sessionId, String reason) {
    return asks.confirmed(
        "restart",
        replyTo -> new KeyRouter.RestartSession(keyId, sessionId, reason, replyTo),
        settings.snapshotTimeout());
  }

  /** The configuration in force: the one started with, or the last {@link #reconfigure}'s. */
  public SupervisorConfig config() {
    return config;
  }

  /**
   * Applies a new configuration while serving, server by server ({@link ConfigChange}): an
   * unchanged server keeps its sessions, processes and leases; an added one starts on first use; a
   * removed one is unknown to the next call, and a changed one's next calls go to new sessions
   * under its new configuration — the sessions of both go on answering the calls they hold (for at
   * most {@code drainTimeout}), then close. Completes with what changed once the next call is
   * routed by {@code newConfig}. Fails with {@link IllegalArgumentException} when {@code
   * gateway.cluster} differs (membership cannot change live; nothing changes then), with {@link
   * SupervisorException} when the supervisor does not confirm in time (shutting down).
   */
  public synchronized CompletionStage<ConfigChange> reconfigure(SupervisorConfig newConfig) {
    Objects.requireNonNull(newConfig, "newConfig");
    if (!Objects.equals(clusterOf(config), clusterOf(newConfig))) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(
              "gateway.cluster cannot change while running: restart to apply it"));
    }
    // set before the router is told, under this lock: both see reconfigurations in one order
    config = newConfig;
    return asks.confirmed(
        "reconfiguration",
        replyTo -> new KeyRouter.Reconfigure(newConfig, replyTo),
        settings.acquireTimeout());
  }

  private static ClusterConfig clusterOf(SupervisorConfig config) {
    return config.gateway() == null ? null : config.gateway().cluster();
  }

  /**
   * Spawns {@code behavior} as a child of the {@link SupervisorGuardian} (for integrations on the
   * same actor system, such as the HTTP gateway's session registry): no system actors, one
   * coordinated shutdown.
   */
  public <T> CompletionStage<ActorRef<T>> spawn(Behavior<T> behavior, String name) {
    Objects.requireNonNull(behavior, "behavior");
    Objects.requireNonNull(name, "name");
    return Asks.<SupervisorGuardian.Command, ActorRef<T>>ask(
        system,
        replyTo -> new SupervisorGuardian.Spawn<>(behavior, name, replyTo),
        settings.acquireTimeout(),
        system.scheduler());
  }

  /** The actor system this supervisor runs on. */
  public org.apache.pekko.actor.typed.ActorSystem<?> actorSystem() {
    return system;
  }

  /**
   * This node's view of its cluster ({@code gateway.cluster}), or {@link Membership#SINGLE_NODE}
   * without one.
   */
  public Membership membership() {
    return membership;
  }

  /**
   * Refuses new calls and acquires at once ("shutting down"), lets the calls in flight be answered
   * (for at most {@code drainTimeout}), then closes every session and child process and stops the
   * actor system. Completes when all is gone.
   */
  public CompletionStage<Void> shutdown() {
    if (!asks.isTerminated()) {
      // told before the coordinated shutdown's phases run: a call made after this returns is
      // refused
      router.tell(new KeyRouter.Shutdown(system.ignoreRef()));
    }
    return CoordinatedShutdown.get(system)
        .runAll(CoordinatedShutdown.unknownReason())
        .thenCompose(done -> system.getWhenTerminated())
        .thenApply(terminated -> null);
  }

  /**
   * {@link #shutdown()} and wait for it (bounded by the configured drain and shutdown timeouts):
   * the calls in flight get their answers first. Idempotent, and safe from any thread: called on
   * one of the supervisor's own threads (in a callback of a stage it completed) it starts the
   * shutdown and returns without waiting.
   */
  @Override
  public void close() {
    if (Thread.currentThread().getName().startsWith(system.name() + "-")) {
      // the callback may run inside an actor's turn: waiting here would hold up the very actor
      // that has to close its session
      shutdown();
      return;
    }
    try {
      shutdown()
          .toCompletableFuture()
          .get(settings.shutdownBound().toMillis() + 5_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      system.terminate();
    }
  }
}
