package dev.mcpsupervisor.http.cluster;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.Asks;
import dev.mcpsupervisor.actors.cluster.Membership;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.access.SessionIdSeal;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.session.DownstreamSession;
import dev.mcpsupervisor.http.session.DownstreamSessions;
import dev.mcpsupervisor.http.session.SessionDirectory;
import dev.mcpsupervisor.http.session.SessionRecord;
import dev.mcpsupervisor.http.session.SessionReplicas;
import dev.mcpsupervisor.http.stateless.PendingRounds;
import dev.mcpsupervisor.http.stateless.StatelessRequest;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ExchangeEdge;
import dev.mcpsupervisor.http.stream.ExchangeSink;
import dev.mcpsupervisor.protocol.CrossNode;
import dev.mcpsupervisor.protocol.RequestStates;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * A cluster node's desk: requests whose state another node holds go through it to that node's desk,
 * which serves them there, and their answers come back to an {@link ExchangeEdge} here that tells
 * the HTTP exchange. What another node holds: a 2025-era downstream session (its id names the node
 * that created it, {@link SessionIds#nodeTagOf}; its replicated {@link SessionRecord} the node that
 * serves it now), and a 2026-07-28 request parked on an {@code input_required} round (its {@code
 * requestState} names the node). A session whose node is gone or stopping is adopted by the node
 * {@link SessionRoutes} picks, from its record: it goes on with no new {@code initialize}. Only
 * requests, events and records cross nodes; exchanges and upstream calls stay where they are. The
 * desks find each other through the receptionist. One per node, in a cluster only.
 */
public final class NodeDesk {

  public static final ServiceKey<Command> KEY =
      ServiceKey.create(Command.class, "mcp-supervisor-node-desk");

  public interface Command {}

  // From this node's routes.

  /** A session-era request to a session this node does not serve. */
  public record ForwardToSession(
      String sessionId, String path, Identity caller, DownstreamSession.Routed command, Exchange on)
      implements Command {}

  /** DELETE of a session this node does not serve. */
  public record ForwardDelete(
      String sessionId, String path, Identity caller, ActorRef<DownstreamSessions.Reply> replyTo)
      implements Command {}

  /** A retry whose round waits on the node its state names. */
  public record ForwardRetry(
      JsonRpcRequest retry, RequestStates.State state, boolean sse, Exchange on)
      implements Command {}

  /**
   * This node stops: it leaves routing at once (the other desks are told {@link Stopping}), and the
   * sessions it serves go on at the nodes that stay, each told to {@link Prepare} those it adopts.
   * Replies once they are prepared, or at {@code handOver}; the sessions' drain follows (what this
   * node took before goes on meanwhile).
   */
  public record Leave(Duration handOver, ActorRef<Done> replyTo) implements Command {}

  /**
   * This node's drain deadline passed: every exchange still served on another node for it ends now
   * with the error its owner's loss means ({@link ExchangeEdge.Abandon}), and so does every other
   * node's request still waiting here; from now on nothing waits here. Replies once they are told;
   * their last frames are written after.
   */
  public record Abandon(ActorRef<Done> replyTo) implements Command {}

  // Between desks.

  /**
   * A request for a session, on its way to the node that serves it.
   *
   * @see #record() null until a desk looked it up
   * @see #hops() how many times a desk sent it to another
   */
  public sealed interface ToSession extends Command, CrossNode
      permits SessionPost, SessionStream, SessionDelete {
    String sessionId();

    String path();

    Identity caller();

    SessionRecord record();

    int hops();

    /** The same request with its record known, sent to one more desk. */
    ToSession passedOn(SessionRecord record);
  }

  /** A POST to a session; its events go to {@code edge}. */
  public record SessionPost(
      String sessionId,
      String path,
      Identity caller,
      List<ObjectNode> messages,
      List<ObjectNode> preAnswered,
      boolean batch,
      boolean acceptsSse,
      ActorRef<Exchange.Event> edge,
      SessionRecord record,
      int hops)
      implements ToSession {
    @Override
    public ToSession passedOn(SessionRecord known) {
      return new SessionPost(
          sessionId, path, caller, messages, preAnswered, batch, acceptsSse, edge, known, hops + 1);
    }
  }

  /** A GET stream of a session, resumed after {@code lastEventId} unless null. */
  public record SessionStream(
      String sessionId,
      String path,
      Identity caller,
      String lastEventId,
      ActorRef<Exchange.Event> edge,
      SessionRecord record,
      int hops)
      implements ToSession {
    @Override
    public ToSession passedOn(SessionRecord known) {
      return new SessionStream(sessionId, path, caller, lastEventId, edge, known, hops + 1);
    }
  }

  /** DELETE of a session. */
  public record SessionDelete(
      String sessionId,
      String path,
      Identity caller,
      ActorRef<DownstreamSessions.Reply> replyTo,
      SessionRecord record,
      int hops)
      implements ToSession {
    @Override
    public ToSession passedOn(SessionRecord known) {
      return new SessionDelete(sessionId, path, caller, replyTo, known, hops + 1);
    }
  }

  /**
   * The node of {@code desk}, incarnation {@code node}, stops: pass it nothing from now on (it
   * passes on what still reaches it). Told by a stopping desk to every other one, before it passes
   * anything on to them.
   */
  public record Stopping(ActorRef<Command> desk, String node) implements Command, CrossNode {}

  /**
   * The node of a stopping desk hands this node the session {@code sessionId}, which it adopts: it
   * takes the session over from its record and starts the upstream sessions it leases ({@link
   * DownstreamSessions.Prepare}), before the session's requests come. Replies once they are ready.
   */
  public record Prepare(String sessionId, ActorRef<Done> replyTo) implements Command, CrossNode {}

  /** The retry of a round parked here. */
  public record RoundRetry(
      ObjectNode retry, RequestStates.State state, boolean sse, ActorRef<Exchange.Event> edge)
      implements Command, CrossNode {}

  // Its own.

  private record DesksChanged(Receptionist.Listing listing) implements Command {}

  /**
   * A session's record, looked up for a request this node does not serve; {@code found} is null
   * when the replicas did not answer in time.
   */
  private record Found(ToSession request, SessionReplicas.Found found) implements Command {}

  /** The record of a session to prepare, looked up; {@code found} is null as in {@link Found}. */
  private record Preparing(Prepare prepare, SessionReplicas.Found found) implements Command {}

  /** Time to route the waiting requests again. */
  private enum Recheck implements Command {
    INSTANCE
  }

  private static final Duration RECHECK = Duration.ofMillis(250);

  /** A forwarded request's exchange is over: its edge stops. */
  private record ExchangeOver(ActorRef<Exchange.Event> edge) implements Command {}

  /** An edge of something served here stopped: its client went away, or its exchange is over. */
  private record EdgeGone(Runnable whenGone) implements Command {}

  /**
   * What a desk serves with: this node's sessions, their replicas and its parked requests.
   *
   * @param seal what the cluster's session ids end with: an id without it is nobody's
   */
  public record Served(
      Membership membership,
      SessionDirectory directory,
      ActorRef<DownstreamSessions.Command> registry,
      ActorRef<SessionReplicas.Command> replicas,
      PendingRounds pending,
      SessionIdSeal seal) {
    String node() {
      return membership.selfNode();
    }
  }

  /** The actor name of {@code node}'s desk ({@link Desks#deskName}). */
  public static String name(long instance, String node) {
    return Desks.deskName(instance, node);
  }

  public static Behavior<Command> create(Served served) {
    return Behaviors.setup(
        context -> {
          context.getSystem().receptionist().tell(Receptionist.register(KEY, context.getSelf()));
          context
              .getSystem()
              .receptionist()
              .tell(
                  Receptionist.subscribe(
                      KEY, context.messageAdapter(Receptionist.Listing.class, DesksChanged::new)));
          return Behaviors.withTimers(
              timers ->
                  new NodeDesk(context, timers, served).serving(Desks.NONE, WaitingRequests.NONE));
        });
  }

  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final Served served;

  /**
   * Where this desk last passed adopted sessions' requests with their records: spares a lookup
   * each.
   */
  private final SessionHomes homes = new SessionHomes();

  private NodeDesk(ActorContext<Command> context, TimerScheduler<Command> timers, Served served) {
    this.context = context;
    this.timers = timers;
    this.served = served;
  }

  /** Serves the sessions it holds and adopts those it is picked for. */
  private Behavior<Command> serving(Desks desks, WaitingRequests waiting) {
    return desk(desks, waiting, this::serving)
        .onMessage(
            DesksChanged.class,
            changed -> {
              Desks now = listed(desks, changed);
              return serving(now, recheck(now, waiting));
            })
        .onMessage(
            Leave.class,
            leave -> {
              context.getLog().debug("leaves routing; tells {}", desks.listed());
              Desks left = desks.leaving(served.node());
              tellStopping(left);
              handOver(left, leave);
              return leaving(left, recheck(left, waiting));
            })
        .onMessage(
            Prepare.class,
            prepare -> {
              prepare(prepare);
              return Behaviors.same();
            })
        .build();
  }

  /**
   * Its node stops: it has left routing (the other desks were told), and every session request that
   * still reaches it goes on to the node that stays and serves it; one that needs a lookup or a
   * wait is handed to a node that stays ({@link SessionRoutes.HandOff}), so nothing another node
   * waits on is left here when this node goes.
   */
  private Behavior<Command> leaving(Desks desks, WaitingRequests waiting) {
    return stopping(desks, waiting, this::leaving);
  }

  /**
   * Its node's drain deadline passed (it was told {@link Abandon}): it still passes on what reaches
   * it, but nothing waits here any more (its node is about to go): what would wait is ended at once
   * as its owner's loss would end it, "send it again" ({@link #abandon}).
   */
  private Behavior<Command> drained(Desks desks, WaitingRequests waiting) {
    waiting.entries().forEach(each -> abandon(each.request()));
    return stopping(desks, WaitingRequests.NONE, this::drained);
  }

  /** What a desk does once its node stops, in {@code next}: it adopts nothing. */
  private Behavior<Command> stopping(
      Desks desks,
      WaitingRequests waiting,
      BiFunction<Desks, WaitingRequests, Behavior<Command>> next) {
    return desk(desks, waiting, next)
        .onMessage(
            DesksChanged.class,
            changed -> {
              Desks now = listed(desks, changed);
              tellStopping(now); // a node that joined meanwhile learns it too
              return next.apply(now, recheck(now, waiting));
            })
        .onMessage(
            Leave.class,
            leave -> {
              leave.replyTo().tell(Done.getInstance());
              return Behaviors.same();
            })
        .onMessage(
            Prepare.class,
            prepare -> {
              prepare.replyTo().tell(Done.getInstance()); // it adopts nothing
              return Behaviors.same();
            })
        .build();
  }

  /** Tells every other listed desk that this node stops. */
  private void tellStopping(Desks desks) {
    ActorRef<Command> self = context.getSelf();
    desks.listed().stream()
        .filter(desk -> !desk.equals(self))
        .forEach(desk -> desk.tell(new Stopping(self, served.node())));
  }

  /**
   * Tells the adopter of each session this node serves to prepare it; {@code leave} hears once all
   * are prepared, or at its deadline.
   */
  private void handOver(Desks desks, Leave leave) {
    SessionRoutes routes = routes(desks);
    Map<String, ActorRef<Command>> byNode = byNode(desks);
    List<CompletableFuture<Done>> prepared = new ArrayList<>();
    for (String id : served.directory().ids()) {
      String adopter = routes.adopter(id);
      if (adopter != null && byNode.containsKey(adopter)) {
        prepared.add(
            Asks.ask(
                byNode.get(adopter),
                replyTo -> new Prepare(id, replyTo),
                leave.handOver(),
                context.getSystem().scheduler(),
                late -> Done.getInstance()));
      }
    }
    CompletableFuture.allOf(prepared.toArray(CompletableFuture[]::new))
        .whenComplete((all, failure) -> leave.replyTo().tell(Done.getInstance()));
  }

  /** Looks the session's record up to adopt it warm. */
  private void prepare(Prepare prepare) {
    context.getLog().debug("prepares {}", SessionIds.redact(prepare.sessionId()));
    context.ask(
        SessionReplicas.Found.class,
        served.replicas(),
        WaitingRequests.UNKNOWN_NODE,
        replyTo -> new SessionReplicas.Find(prepare.sessionId(), replyTo),
        (found, failure) -> new Preparing(prepare, found));
  }

  /** What a desk does in every state; {@code next} is the state it stays in. */
  private BehaviorBuilder<Command> desk(
      Desks desks,
      WaitingRequests waiting,
      BiFunction<Desks, WaitingRequests, Behavior<Command>> next) {
    return Behaviors.receive(Command.class)
        .onMessage(Recheck.class, recheck -> next.apply(desks, recheck(desks, waiting)))
        .onMessage(
            Stopping.class,
            left -> {
              context.getLog().debug("{} ({}) stops", left.desk(), left.node());
              Desks now = desks.leaving(left.node());
              return next.apply(now, recheck(now, waiting));
            })
        .onMessage(
            ForwardToSession.class,
            forward ->
                route(
                    desks,
                    waiting,
                    next,
                    DeskMessages.toSession(
                        forward, edge(forward.on(), DeskMessages.nodeLost(forward.command())))))
        .onMessage(
            ForwardDelete.class,
            delete -> route(desks, waiting, next, DeskMessages.toSession(delete)))
        .onMessage(ToSession.class, request -> route(desks, waiting, next, request))
        .onMessage(
            Found.class,
            found -> {
              if (found.found() == null || !found.found().known()) {
                return lookUpAgain(desks, waiting, next, found.request());
              }
              SessionRecord record = found.found().record();
              if (record == null) {
                trace("no record", found.request());
                homes.forget(found.request().sessionId());
                gone(found.request());
                return Behaviors.same();
              }
              // a lookup counts as a hop: a request the nodes keep passing on ends somewhere
              return route(desks, waiting, next, found.request().passedOn(record));
            })
        .onMessage(
            ForwardRetry.class,
            retry -> {
              if (forwardRetry(desks, retry)) {
                return Behaviors.same();
              }
              return next.apply(desks, waitFor(waiting, retry, WaitingRequests.UNKNOWN_NODE));
            })
        .onMessage(
            RoundRetry.class,
            retry -> {
              serveRetry(retry);
              return Behaviors.same();
            })
        .onMessage(
            Preparing.class,
            preparing -> {
              SessionRecord record = preparing.found() == null ? null : preparing.found().record();
              if (record == null) { // nothing to prepare: its first request looks it up again
                preparing.prepare().replyTo().tell(Done.getInstance());
              } else {
                served
                    .registry()
                    .tell(
                        new DownstreamSessions.Prepare(
                            record.servedFrom(served.node()), preparing.prepare().replyTo()));
              }
              return Behaviors.same();
            })
        .onMessage(
            Abandon.class,
            abandon -> {
              // every child is an edge (see edge()): this node's exchanges served elsewhere
              List<ActorRef<Void>> children = context.getChildren();
              children.forEach(
                  child ->
                      child.<Exchange.Event>unsafeUpcast().tell(ExchangeEdge.Abandon.INSTANCE));
              abandon.replyTo().tell(Done.getInstance());
              // what waits here for the other nodes' exchanges ends too (a child was told above)
              WaitingRequests theirs =
                  waiting.without(
                      request ->
                          request instanceof ToSession toSession
                              && DeskMessages.edgeOf(toSession)
                                  .map(children::contains)
                                  .orElse(false));
              return drained(desks.leaving(served.node()), theirs);
            })
        .onMessage(
            ExchangeOver.class,
            over -> {
              context.stop(over.edge());
              return Behaviors.same();
            })
        .onMessage(
            EdgeGone.class,
            gone -> {
              gone.whenGone().run();
              return Behaviors.same();
            });
  }

  // ------------------------------------------------------------------------------ session routing

  /**
   * Serves the request here, sends it to the desk that serves it, looks its record up, or waits.
   */
  private Behavior<Command> route(
      Desks desks,
      WaitingRequests waiting,
      BiFunction<Desks, WaitingRequests, Behavior<Command>> next,
      ToSession request) {
    SessionRoutes routes = routes(desks);
    if (routes.selfServes() && served.directory().holds(request.sessionId())) {
      serveHere(request, null);
      return Behaviors.same();
    }
    if (!served.seal().verifies(request.sessionId())) { // forged, or another cluster's: no lookup
      trace("not this cluster's", request);
      gone(request);
      return Behaviors.same();
    }
    SessionRoutes.Route route = routeOf(routes, request);
    if (route instanceof SessionRoutes.Wait) {
      trace("waits for its node", request);
      return next.apply(desks, waitFor(waiting, request, patience(request, routes)));
    }
    act(desks, request, route);
    return Behaviors.same();
  }

  private void act(Desks desks, ToSession request, SessionRoutes.Route route) {
    if (route instanceof SessionRoutes.To to && to.address().equals(served.node())) {
      serveHere(request, request.record());
    } else if (route instanceof SessionRoutes.To to) {
      ToSession passed = request.passedOn(request.record());
      trace("passed on to " + to.address(), passed);
      if (request.record() != null) { // its home, or its adopter, which will be
        homes.found(request.sessionId(), to.address());
      }
      pass(byNode(desks).get(to.address()), passed);
    } else if (route instanceof SessionRoutes.HandOff handOff) {
      trace("handed off to " + handOff.address(), request);
      pass(byNode(desks).get(handOff.address()), request);
    } else if (route instanceof SessionRoutes.Find) {
      trace("record looked up", request);
      context.ask(
          SessionReplicas.Found.class,
          served.replicas(),
          WaitingRequests.UNKNOWN_NODE,
          replyTo -> new SessionReplicas.Find(request.sessionId(), replyTo),
          (found, failure) -> new Found(request, found));
    } else {
      trace("nowhere to go", request);
      gone(request);
    }
  }

  /**
   * Sends {@code request} to {@code desk}. At every pass, the first after a record's lookup too,
   * the edge learns which desk has the request: it watches that one, else a desk that went away
   * before serving it would leave the client waiting.
   */
  private static void pass(ActorRef<Command> desk, ToSession request) {
    DeskMessages.edgeOf(request)
        .ifPresent(edge -> edge.tell(new ExchangeEdge.ServedBy(desk, request.hops())));
    desk.tell(request);
  }

  /** What a desk did with a session's request, for the DEBUG log of a cluster in trouble. */
  private void trace(String what, ToSession request) {
    if (context.getLog().isDebugEnabled()) {
      context
          .getLog()
          .debug(
              "{} {}: {} (hops {}, home {})",
              request.getClass().getSimpleName(),
              SessionIds.redact(request.sessionId()),
              what,
              request.hops(),
              request.record() == null ? "not looked up" : request.record().home());
    }
  }

  /**
   * The replicas did not answer in time (a loaded node, a majority changing), or only from this
   * node's copy, which lacks the record (a node that has just joined): that says nothing of the
   * session, so it is no 404. The lookup counts as a hop and is made again; past {@link
   * SessionRoutes#MAX_HOPS} the client is told to send the request again.
   */
  private Behavior<Command> lookUpAgain(
      Desks desks,
      WaitingRequests waiting,
      BiFunction<Desks, WaitingRequests, Behavior<Command>> next,
      ToSession request) {
    ToSession again = request.passedOn(null);
    trace("record not known", again);
    if (again.hops() > SessionRoutes.MAX_HOPS) {
      giveUp(again);
      return Behaviors.same();
    }
    return route(desks, waiting, next, again);
  }

  /** How long a request that must wait may: longer for a node that cannot be reached. */
  private Duration patience(ToSession request, SessionRoutes routes) {
    String home = request.record() != null ? request.record().home() : null;
    boolean unreachable =
        home != null
            ? routes.standing(home) == SessionRoutes.Standing.UNREACHABLE
            : served.membership().unreachableCount() > 0;
    return unreachable ? WaitingRequests.UNREACHABLE_NODE : WaitingRequests.UNKNOWN_NODE;
  }

  private SessionRoutes.Route routeOf(SessionRoutes routes, ToSession request) {
    String id = request.sessionId();
    return routes.of(id, request.record(), request.hops(), homes.of(id));
  }

  private SessionRoutes routes(Desks desks) {
    return desks.routes(served.node(), served.membership().members());
  }

  private Map<String, ActorRef<Command>> byNode(Desks desks) {
    return desks.byNode(served.node(), served.membership().members());
  }

  private Desks listed(Desks desks, DesksChanged changed) {
    Set<ActorRef<Command>> listing = desksOf(changed.listing());
    context.getLog().debug("desks listed: {}", listing);
    return desks.listed(listing, served.node(), served.membership().members());
  }

  /** The waiting requests that still wait; the others are routed, or told their node is gone. */
  private WaitingRequests recheck(Desks desks, WaitingRequests waiting) {
    SessionRoutes routes = routes(desks);
    Map<String, ActorRef<Command>> byNode = byNode(desks);
    WaitingRequests.Sorted sorted =
        waiting.sort(
            System.nanoTime(),
            request ->
                request instanceof ForwardRetry retry
                    ? !byNode.containsKey(retry.state().node())
                    : routeOf(routes, (ToSession) request) instanceof SessionRoutes.Wait);
    for (Command request : sorted.ready()) {
      if (request instanceof ForwardRetry retry) {
        forwardRetry(desks, retry);
      } else {
        act(desks, (ToSession) request, routeOf(routes, (ToSession) request));
      }
    }
    for (Command request : sorted.expired()) {
      if (request instanceof ToSession toSession) {
        trace("waited for its node in vain", toSession);
      }
      giveUp(request);
    }
    if (sorted.waiting().isEmpty()) {
      timers.cancel(Recheck.INSTANCE);
    }
    return sorted.waiting();
  }

  private WaitingRequests waitFor(WaitingRequests waiting, Command request, Duration patience) {
    if (!timers.isTimerActive(Recheck.INSTANCE)) {
      timers.startTimerAtFixedRate(Recheck.INSTANCE, RECHECK);
    }
    return waiting.plus(request, patience, System.nanoTime());
  }

  /** The node that holds a waiting request's state did not come (back) in time. */
  private static void giveUp(Command request) {
    if (request instanceof ForwardRetry retry) {
      retry.on().tell(DeskMessages.roundNodeGone(retry.retry()));
    } else if (request instanceof SessionDelete delete) {
      delete.replyTo().tell(DownstreamSessions.Reply.UNKNOWN_SESSION);
    } else {
      DeskMessages.edgeOf((ToSession) request)
          .ifPresent(edge -> edge.tell(DeskMessages.nodeLost()));
    }
  }

  /**
   * Ends a request that can wait no more, its node about to go: its edge ends it as the loss of the
   * node that has it would ("send it again"); one without an edge is given up.
   */
  private void abandon(Command waiting) {
    if (waiting instanceof ToSession request && DeskMessages.edgeOf(request).isPresent()) {
      trace("abandoned at the drain deadline", request);
      DeskMessages.edgeOf(request).get().tell(ExchangeEdge.Abandon.INSTANCE);
    } else {
      giveUp(waiting);
    }
  }

  /** No node has the session: the client's id is unknown (404), so it initializes again. */
  private static void gone(ToSession request) {
    if (request instanceof SessionDelete delete) {
      delete.replyTo().tell(DownstreamSessions.Reply.UNKNOWN_SESSION);
    } else {
      DeskMessages.edgeOf(request)
          .ifPresent(edge -> edge.tell(Exchange.Refused.of(404, "Session not found")));
    }
  }

  /**
   * The edge of an exchange served on another node: it stops once the exchange is over, and tells
   * the exchange {@code ownerGone} should the node that serves it go away first.
   */
  private ActorRef<Exchange.Event> edge(Exchange exchange, Exchange.Event ownerGone) {
    ActorRef<Exchange.Event> edge =
        context.spawnAnonymous(ExchangeEdge.create(exchange, ownerGone));
    ActorRef<Command> self = context.getSelf();
    exchange.terminated().thenRun(() -> self.tell(new ExchangeOver(edge)));
    return edge;
  }

  // ------------------------------------------------------------------------------- serving here

  /**
   * Serves a session request here: to the session this node holds, or, with its {@code record}, to
   * the session this node adopts.
   */
  private void serveHere(ToSession request, SessionRecord record) {
    trace(
        record != null && !served.directory().holds(request.sessionId())
            ? "adopted here"
            : "served here",
        request);
    if (request instanceof SessionDelete delete) {
      deleteHere(delete, record);
      return;
    }
    Optional<DownstreamSession.Routed> read = DeskMessages.command(request);
    if (read.isEmpty()) {
      return;
    }
    DownstreamSession.Routed command = read.get();
    ActorRef<Exchange.Event> edge = DeskMessages.edgeOf(request).orElseThrow();
    SessionDirectory directory = served.directory();
    ExchangeSink sink = command.exchange();
    String id = request.sessionId();
    context.watchWith(
        edge,
        new EdgeGone(
            () ->
                directory.tell(
                    id,
                    request.path(),
                    request.caller(),
                    new DownstreamSession.ExchangeClosed(sink))));
    if (record != null && !directory.holds(id)) {
      served
          .registry()
          .tell(
              new DownstreamSessions.Adopt(
                  record.servedFrom(served.node()), request.path(), request.caller(), command));
    } else {
      directory.tell(id, request.path(), request.caller(), command);
    }
  }

  /**
   * DELETE here: of the session this node holds; of one nobody serves, its record alone (there is
   * nothing to adopt only to end it).
   */
  private void deleteHere(SessionDelete delete, SessionRecord record) {
    if (record == null || served.directory().holds(delete.sessionId())) {
      served
          .registry()
          .tell(
              new DownstreamSessions.Terminate(
                  delete.sessionId(), delete.path(), delete.caller(), delete.replyTo()));
    } else if (record.path().equals(delete.path()) && record.owner().equals(delete.caller())) {
      served.replicas().tell(new SessionReplicas.Forget(delete.sessionId()));
      delete.replyTo().tell(DownstreamSessions.Reply.DONE);
    } else {
      delete.replyTo().tell(DownstreamSessions.Reply.UNKNOWN_SESSION);
    }
  }

  // -------------------------------------------------------------------------------------- rounds

  /** Sends the retry to the node its state names; false when that node is not listed. */
  private boolean forwardRetry(Desks desks, ForwardRetry retry) {
    ActorRef<Command> owner = byNode(desks).get(retry.state().node());
    if (owner == null) {
      return false;
    }
    ActorRef<Exchange.Event> edge = edge(retry.on(), DeskMessages.roundNodeGone(retry.retry()));
    edge.tell(new ExchangeEdge.ServedBy(owner, 1));
    owner.tell(
        new RoundRetry(JsonRpcCodec.toJson(retry.retry()), retry.state(), retry.sse(), edge));
    return true;
  }

  private void serveRetry(RoundRetry retry) {
    Optional<JsonRpcRequest> read = DeskMessages.retry(retry);
    if (read.isEmpty()) {
      return;
    }
    JsonRpcRequest request = read.get();
    ExchangeSink sink = retry.edge()::tell;
    StatelessRequest parked = served.pending().get(retry.state().pendingId());
    if (parked == null) {
      sink.tell(PendingRounds.noRoundWaiting(request));
      return;
    }
    context.watchWith(retry.edge(), new EdgeGone(() -> parked.exchangeEnded(sink)));
    parked.resume(request, retry.state(), sink, retry.sse());
  }

  // ------------------------------------------------------------------------------------- helpers

  private static Set<ActorRef<Command>> desksOf(Receptionist.Listing listing) {
    return listing.getServiceInstances(KEY);
  }
}
