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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
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

  /** A session-era request to a session another node holds. */
  public record ForwardToSession(
      String sessionId, String path, Identity caller, DownstreamSession.Routed command, Exchange on)
      implements Command {}

  /** DELETE of a session another node holds. */
  public record ForwardDelete(
      String sessionId, String path, Identity caller, ActorRef<DownstreamSessions.Reply> replyTo)
      implements Command {}

  /** A retry whose round waits on the node its state names. */
  public record ForwardRetry(
      JsonRpcRequest retry, RequestStates.State state, boolean sse, Exchange on)
      implements Command {}

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
          return serving(context, served, Desks.NONE);
        });
  }

  private static Behavior<Command> serving(
      ActorContext<Command> context, Served served, Desks desks) {
    return Behaviors.receive(Command.class)
        .onMessage(
            DesksChanged.class,
            changed -> serving(context, served, desksOf(changed.listing(), served.node())))
        .onMessage(
            ForwardToSession.class,
            forward -> {
              forwardToSession(context, desks, forward);
              return Behaviors.same();
            })
        .onMessage(
            ForwardDelete.class,
            forward -> {
              ActorRef<Command> home = desks.byTag().get(SessionIds.nodeTagOf(forward.sessionId()));
              if (home == null) {
                forward.replyTo().tell(DownstreamSessions.Reply.UNKNOWN_SESSION);
              } else {
                home.tell(
                    new SessionDelete(
                        forward.sessionId(), forward.path(), forward.caller(), forward.replyTo()));
              }
              return Behaviors.same();
            })
        .onMessage(
            ForwardRetry.class,
            forward -> {
              ActorRef<Command> owner = desks.byAddress().get(forward.state().node());
              if (owner == null) {
                forward.on().tell(roundNodeGone(forward.retry()));
              } else {
                owner.tell(
                    new RoundRetry(
                        JsonRpcCodec.toJson(forward.retry()),
                        forward.state(),
                        forward.sse(),
                        edge(context, forward.on(), owner, roundNodeGone(forward.retry()))));
              }
              return Behaviors.same();
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

  // ---------------------------------------------------------------------------- this node's side

  private static void forwardToSession(
      ActorContext<Command> context, Desks desks, ForwardToSession forward) {
    ActorRef<Command> home = desks.byTag().get(SessionIds.nodeTagOf(forward.sessionId()));
    DownstreamSession.Routed command = forward.command();
    if (home == null) {
      forward.on().tell(command.whenGone());
      return;
    }
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
