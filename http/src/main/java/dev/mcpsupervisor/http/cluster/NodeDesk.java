package dev.mcpsupervisor.http.cluster;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.session.DownstreamSession;
import dev.mcpsupervisor.http.session.DownstreamSessions;
import dev.mcpsupervisor.http.session.SessionDirectory;
import dev.mcpsupervisor.http.stateless.PendingRounds;
import dev.mcpsupervisor.http.stateless.StatelessRequest;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ExchangeEdge;
import dev.mcpsupervisor.http.stream.ExchangeSink;
import dev.mcpsupervisor.protocol.CrossNode;
import dev.mcpsupervisor.protocol.RequestStates;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcException;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * A cluster node's desk: requests whose state another node holds go through it to that node's desk,
 * which serves them there, and their answers come back to an {@link ExchangeEdge} here that tells
 * the HTTP exchange. What another node holds: a 2025-era downstream session (its id names the node,
 * {@link SessionIds#nodeTagOf}), and a 2026-07-28 request parked on an {@code input_required} round
 * (its {@code requestState} names the node). The exchanges, sessions, parked requests and upstream
 * calls never move; only requests and events cross. The desks find each other through the
 * receptionist. One per node, in a cluster only.
 */
public final class NodeDesk {

  public static final ServiceKey<Command> KEY =
      ServiceKey.create(Command.class, "mcp-supervisor-node-desk");

  public interface Command {}

  // From this node's routes.

  /** A request for state another node holds, from this node's routes. */
  public sealed interface Forwarded extends Command
      permits ForwardToSession, ForwardDelete, ForwardRetry {}

  /** A session-era request to a session another node holds. */
  public record ForwardToSession(
      String sessionId, String path, Identity caller, DownstreamSession.Routed command, Exchange on)
      implements Forwarded {}

  /** DELETE of a session another node holds. */
  public record ForwardDelete(
      String sessionId, String path, Identity caller, ActorRef<DownstreamSessions.Reply> replyTo)
      implements Forwarded {}

  /** A retry whose round waits on the node its state names. */
  public record ForwardRetry(
      JsonRpcRequest retry, RequestStates.State state, boolean sse, Exchange on)
      implements Forwarded {}

  // From another node's desk.

  /** A POST to a session held here; its events go to {@code edge}. */
  public record SessionPost(
      String sessionId,
      String path,
      Identity caller,
      List<ObjectNode> messages,
      List<ObjectNode> preAnswered,
      boolean batch,
      boolean acceptsSse,
      ActorRef<Exchange.Event> edge)
      implements Command, CrossNode {}

  /** A GET stream of a session held here, resumed after {@code lastEventId} unless null. */
  public record SessionStream(
      String sessionId,
      String path,
      Identity caller,
      String lastEventId,
      ActorRef<Exchange.Event> edge)
      implements Command, CrossNode {}

  /** DELETE of a session held here. */
  public record SessionDelete(
      String sessionId, String path, Identity caller, ActorRef<DownstreamSessions.Reply> replyTo)
      implements Command, CrossNode {}

  /** The retry of a round parked here. */
  public record RoundRetry(
      ObjectNode retry, RequestStates.State state, boolean sse, ActorRef<Exchange.Event> edge)
      implements Command, CrossNode {}

  // Its own.

  private record DesksChanged(Receptionist.Listing listing) implements Command {}

  /** Time to tell the requests that waited too long for their node that it is gone. */
  private enum Recheck implements Command {
    INSTANCE
  }

  /** A request waiting for its node to be listed, until {@code deadlineNanos}. */
  private record Waiting(Forwarded forward, long deadlineNanos) {}

  /**
   * How long a request waits for the node its state names to be listed here: a node that has just
   * joined is listed on the others within a gossip round or two of the receptionist.
   */
  private static final Duration UNKNOWN_NODE_WAIT = Duration.ofSeconds(5);

  private static final Duration RECHECK = Duration.ofMillis(500);

  /** A forwarded request's exchange is over: its edge stops. */
  private record ExchangeOver(ActorRef<Exchange.Event> edge) implements Command {}

  /** An edge of something served here stopped: its client went away, or its exchange is over. */
  private record EdgeGone(Runnable whenGone) implements Command {}

  /** The desks of the other nodes, by address and by the tag their session ids carry. */
  private record Desks(
      Map<String, ActorRef<Command>> byAddress, Map<String, ActorRef<Command>> byTag) {
    static final Desks NONE = new Desks(Map.of(), Map.of());
  }

  /** What a desk serves with: this node's sessions and parked requests. */
  public record Served(
      String node,
      SessionDirectory directory,
      ActorRef<DownstreamSessions.Command> registry,
      PendingRounds pending) {}

  private NodeDesk() {}

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
              timers -> serving(context, timers, served, Desks.NONE, List.of()));
        });
  }

  private static Behavior<Command> serving(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      Served served,
      Desks desks,
      List<Waiting> waiting) {
    return Behaviors.receive(Command.class)
        .onMessage(
            DesksChanged.class,
            changed -> {
              Desks now = desksOf(changed.listing(), served.node());
              return serving(
                  context, timers, served, now, stillWaiting(context, timers, now, waiting));
            })
        .onMessage(
            Recheck.class,
            recheck ->
                serving(
                    context, timers, served, desks, expired(timers, waiting, System.nanoTime())))
        .onMessage(
            Forwarded.class,
            forward -> {
              if (forward(context, desks, forward)) {
                return Behaviors.same();
              }
              // a node that has just joined is not listed on every node yet: its requests wait
              List<Waiting> more = new ArrayList<>(waiting);
              more.add(new Waiting(forward, System.nanoTime() + UNKNOWN_NODE_WAIT.toNanos()));
              if (!timers.isTimerActive(Recheck.INSTANCE)) {
                timers.startTimerAtFixedRate(Recheck.INSTANCE, RECHECK);
              }
              return serving(context, timers, served, desks, List.copyOf(more));
            })
        .onMessage(
            SessionPost.class,
            post -> {
              servePost(context, served, post);
              return Behaviors.same();
            })
        .onMessage(
            SessionStream.class,
            stream -> {
              ExchangeSink sink = stream.edge()::tell;
              DownstreamSession.Routed command =
                  stream.lastEventId() == null
                      ? new DownstreamSession.OpenStream(sink)
                      : new DownstreamSession.ResumeStream(stream.lastEventId(), sink);
              serveSession(
                  context,
                  served,
                  stream.sessionId(),
                  stream.path(),
                  stream.caller(),
                  command,
                  stream.edge());
              return Behaviors.same();
            })
        .onMessage(
            SessionDelete.class,
            delete -> {
              served
                  .registry()
                  .tell(
                      new DownstreamSessions.Terminate(
                          delete.sessionId(), delete.path(), delete.caller(), delete.replyTo()));
              return Behaviors.same();
            })
        .onMessage(
            RoundRetry.class,
            retry -> {
              serveRetry(context, served, retry);
              return Behaviors.same();
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
            })
        .build();
  }

  /** The waiting requests whose node is still not listed, once the others are forwarded. */
  private static List<Waiting> stillWaiting(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      Desks desks,
      List<Waiting> waiting) {
    List<Waiting> left =
        waiting.stream().filter(each -> !forward(context, desks, each.forward())).toList();
    if (left.isEmpty()) {
      timers.cancel(Recheck.INSTANCE);
    }
    return left;
  }

  /** The waiting requests whose wait is not over; the others are told their node is gone. */
  private static List<Waiting> expired(
      TimerScheduler<Command> timers, List<Waiting> waiting, long now) {
    List<Waiting> left = new ArrayList<>();
    for (Waiting each : waiting) {
      if (now - each.deadlineNanos() >= 0) {
        giveUp(each.forward());
      } else {
        left.add(each);
      }
    }
    if (left.isEmpty()) {
      timers.cancel(Recheck.INSTANCE);
    }
    return List.copyOf(left);
  }

  /** Sends {@code forward} to the node that holds its state; false when that node is not listed. */
  private static boolean forward(ActorContext<Command> context, Desks desks, Forwarded forward) {
    if (forward instanceof ForwardToSession toSession) {
      ActorRef<Command> home = desks.byTag().get(SessionIds.nodeTagOf(toSession.sessionId()));
      if (home != null) {
        forwardToSession(context, home, toSession);
      }
      return home != null;
    }
    if (forward instanceof ForwardDelete delete) {
      ActorRef<Command> home = desks.byTag().get(SessionIds.nodeTagOf(delete.sessionId()));
      if (home != null) {
        home.tell(
            new SessionDelete(
                delete.sessionId(), delete.path(), delete.caller(), delete.replyTo()));
      }
      return home != null;
    }
    ForwardRetry retry = (ForwardRetry) forward;
    ActorRef<Command> owner = desks.byAddress().get(retry.state().node());
    if (owner != null) {
      owner.tell(
          new RoundRetry(
              JsonRpcCodec.toJson(retry.retry()),
              retry.state(),
              retry.sse(),
              edge(context, retry.on(), owner, roundNodeGone(retry.retry()))));
    }
    return owner != null;
  }

  /** The node that holds {@code forward}'s state is not in the cluster: it is answered so. */
  private static void giveUp(Forwarded forward) {
    if (forward instanceof ForwardToSession toSession) {
      toSession.on().tell(toSession.command().whenGone());
    } else if (forward instanceof ForwardDelete delete) {
      delete.replyTo().tell(DownstreamSessions.Reply.UNKNOWN_SESSION);
    } else {
      ForwardRetry retry = (ForwardRetry) forward;
      retry.on().tell(roundNodeGone(retry.retry()));
    }
  }

  // ---------------------------------------------------------------------------- this node's side

  private static void forwardToSession(
      ActorContext<Command> context, ActorRef<Command> home, ForwardToSession forward) {
    DownstreamSession.Routed command = forward.command();
    ActorRef<Exchange.Event> edge = edge(context, forward.on(), home, command.whenGone());
    if (command instanceof DownstreamSession.Post post) {
      home.tell(
          new SessionPost(
              forward.sessionId(),
              forward.path(),
              forward.caller(),
              post.messages().stream().map(JsonRpcCodec::toJson).toList(),
              post.preAnswered().stream().map(JsonRpcCodec::toJson).toList(),
              post.batch(),
              post.acceptsSse(),
              edge));
    } else if (command instanceof DownstreamSession.ResumeStream resume) {
      home.tell(
          new SessionStream(
              forward.sessionId(), forward.path(), forward.caller(), resume.lastEventId(), edge));
    } else {
      home.tell(
          new SessionStream(forward.sessionId(), forward.path(), forward.caller(), null, edge));
    }
  }

  /**
   * The edge of an exchange served on {@code owner}'s node: it stops once the exchange is over, and
   * tells the exchange {@code ownerGone} should that node go away first.
   */
  private static ActorRef<Exchange.Event> edge(
      ActorContext<Command> context,
      Exchange exchange,
      ActorRef<Command> owner,
      Exchange.Event ownerGone) {
    ActorRef<Exchange.Event> edge =
        context.spawnAnonymous(ExchangeEdge.create(exchange, owner, ownerGone));
    ActorRef<Command> self = context.getSelf();
    exchange.terminated().thenRun(() -> self.tell(new ExchangeOver(edge)));
    return edge;
  }

  // ------------------------------------------------------------------------- the holding node's
  // side

  private static void servePost(ActorContext<Command> context, Served served, SessionPost post) {
    ExchangeSink sink = post.edge()::tell;
    List<JsonRpcMessage> messages = new ArrayList<>();
    List<JsonRpcResponse> preAnswered = new ArrayList<>();
    try {
      for (ObjectNode message : post.messages()) {
        messages.add(JsonRpcCodec.read(message));
      }
      for (ObjectNode answer : post.preAnswered()) {
        preAnswered.add((JsonRpcResponse) JsonRpcCodec.read(answer));
      }
    } catch (JsonRpcException | ClassCastException e) { // checked on the edge: another build's
      sink.tell(Exchange.Refused.of(400, "the request could not be read: " + e.getMessage()));
      return;
    }
    serveSession(
        context,
        served,
        post.sessionId(),
        post.path(),
        post.caller(),
        new DownstreamSession.Post(messages, preAnswered, post.batch(), post.acceptsSse(), sink),
        post.edge());
  }

  /**
   * Tells the session held here the command whose exchange is {@code edge}'s; an edge that stops
   * (its client went away, its exchange is over) closes the exchange for the session.
   */
  private static void serveSession(
      ActorContext<Command> context,
      Served served,
      String sessionId,
      String path,
      Identity caller,
      DownstreamSession.Routed command,
      ActorRef<Exchange.Event> edge) {
    SessionDirectory directory = served.directory();
    ExchangeSink sink = command.exchange();
    context.watchWith(
        edge,
        new EdgeGone(
            () ->
                directory.tell(
                    sessionId, path, caller, new DownstreamSession.ExchangeClosed(sink))));
    directory.tell(sessionId, path, caller, command);
  }

  private static void serveRetry(ActorContext<Command> context, Served served, RoundRetry retry) {
    ExchangeSink sink = retry.edge()::tell;
    JsonRpcRequest request;
    try {
      request = (JsonRpcRequest) JsonRpcCodec.read(retry.retry());
    } catch (JsonRpcException | ClassCastException e) { // checked on the edge: another build's
      sink.tell(Exchange.Refused.of(400, "the retry could not be read: " + e.getMessage()));
      return;
    }
    StatelessRequest parked = served.pending().get(retry.state().pendingId());
    if (parked == null) {
      sink.tell(PendingRounds.noRoundWaiting(request));
      return;
    }
    context.watchWith(retry.edge(), new EdgeGone(() -> parked.exchangeEnded(sink)));
    parked.resume(request, retry.state(), sink, retry.sse());
  }

  // ------------------------------------------------------------------------------------- helpers

  /**
   * The desks of the listing by their node's address and tag (this node's own under {@code node}).
   */
  private static Desks desksOf(Receptionist.Listing listing, String node) {
    Map<String, ActorRef<Command>> byAddress = new HashMap<>();
    Map<String, ActorRef<Command>> byTag = new HashMap<>();
    for (ActorRef<Command> desk : listing.getServiceInstances(KEY)) {
      var address = desk.path().address();
      String name = address.hasLocalScope() ? node : address.toString();
      byAddress.put(name, desk);
      byTag.put(SessionIds.nodeTag(name), desk);
    }
    return new Desks(Map.copyOf(byAddress), Map.copyOf(byTag));
  }

  /** The node that held the round is not in the cluster (any more): the call is lost with it. */
  static Exchange.Refused roundNodeGone(JsonRpcRequest retry) {
    String why =
        "the gateway node that held this input_required round is gone, and the call with it:"
            + " send the request again without requestState";
    return new Exchange.Refused(
        400, JsonRpcCodec.toJson(JsonRpcResponse.failure(retry.id(), INVALID_PARAMS, why)));
  }
}
