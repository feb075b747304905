package dev.mcpsupervisor.http.stateless;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ExchangeSink;
import dev.mcpsupervisor.protocol.CrossNode;
import dev.mcpsupervisor.protocol.RequestStates;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcException;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.HashMap;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * A cluster node's desk for 2026-07-28 {@code input_required} rounds: a retry whose {@code
 * requestState} names another node is forwarded to that node's desk, which resumes the request
 * parked there; the retry's events come back to a {@link RoundEdge} on this node, which tells the
 * HTTP exchange. The desks find each other through the receptionist. One per node, in a cluster
 * only (a single node finds every round in its own {@link PendingRounds}).
 */
public final class RoundDesk {

  public static final ServiceKey<Command> KEY =
      ServiceKey.create(Command.class, "mcp-supervisor-round-desk");

  public interface Command {}

  /** From this node's routes: a retry whose round waits on the node its state names. */
  public record Forward(JsonRpcRequest retry, RequestStates.State state, boolean sse, Exchange on)
      implements Command {}

  /** From another node's desk: the retry of a round parked here; its events go to {@code edge}. */
  public record Resume(
      ObjectNode retry, RequestStates.State state, boolean sse, ActorRef<Exchange.Event> edge)
      implements Command, CrossNode {}

  private record DesksChanged(Receptionist.Listing listing) implements Command {}

  /** The exchange of a forwarded retry is over: its edge stops. */
  private record ExchangeOver(ActorRef<Exchange.Event> edge) implements Command {}

  /** A resumed round's edge stopped: its client went away, or its exchange is over. */
  private record EdgeGone(StatelessRequest parked, ExchangeSink sink) implements Command {}

  private RoundDesk() {}

  /**
   * @param node this node's address, as the states it seals name it
   */
  public static Behavior<Command> create(PendingRounds pending, String node) {
    return Behaviors.setup(
        context -> {
          context.getSystem().receptionist().tell(Receptionist.register(KEY, context.getSelf()));
          context
              .getSystem()
              .receptionist()
              .tell(
                  Receptionist.subscribe(
                      KEY, context.messageAdapter(Receptionist.Listing.class, DesksChanged::new)));
          return serving(context, pending, node, Map.of());
        });
  }

  /** Serving, knowing the desks of {@code desks}' nodes (by address). */
  private static Behavior<Command> serving(
      ActorContext<Command> context,
      PendingRounds pending,
      String node,
      Map<String, ActorRef<Command>> desks) {
    return Behaviors.receive(Command.class)
        .onMessage(
            DesksChanged.class,
            changed -> serving(context, pending, node, byNode(changed.listing(), node)))
        .onMessage(
            Forward.class,
            forward -> {
              ActorRef<Command> owner = desks.get(forward.state().node());
              if (owner == null) {
                forward.on().tell(nodeGone(forward.retry()));
              } else {
                ActorRef<Exchange.Event> edge =
                    context.spawnAnonymous(RoundEdge.create(forward.on(), owner));
                ActorRef<Command> self = context.getSelf();
                forward.on().terminated().thenRun(() -> self.tell(new ExchangeOver(edge)));
                owner.tell(
                    new Resume(
                        JsonRpcCodec.toJson(forward.retry()),
                        forward.state(),
                        forward.sse(),
                        edge));
              }
              return Behaviors.same();
            })
        .onMessage(
            ExchangeOver.class,
            over -> {
              context.stop(over.edge());
              return Behaviors.same();
            })
        .onMessage(
            Resume.class,
            resume -> {
              resume(context, pending, resume);
              return Behaviors.same();
            })
        .onMessage(
            EdgeGone.class,
            gone -> {
              gone.parked().exchangeEnded(gone.sink());
              return Behaviors.same();
            })
        .build();
  }

  private static void resume(ActorContext<Command> context, PendingRounds pending, Resume resume) {
    ExchangeSink sink = resume.edge()::tell;
    JsonRpcRequest retry;
    try {
      retry = (JsonRpcRequest) JsonRpcCodec.read(resume.retry());
    } catch (JsonRpcException | ClassCastException e) { // checked on the edge: another build's
      sink.tell(Exchange.Refused.of(400, "the retry could not be read: " + e.getMessage()));
      return;
    }
    StatelessRequest parked = pending.get(resume.state().pendingId());
    if (parked == null) {
      sink.tell(PendingRounds.noRoundWaiting(retry));
      return;
    }
    context.watchWith(resume.edge(), new EdgeGone(parked, sink));
    parked.resume(retry, resume.state(), sink, resume.sse());
  }

  /** The desks by the address of their node (this node's own under {@code node}). */
  private static Map<String, ActorRef<Command>> byNode(Receptionist.Listing listing, String node) {
    Map<String, ActorRef<Command>> desks = new HashMap<>();
    for (ActorRef<Command> desk : listing.getServiceInstances(KEY)) {
      var address = desk.path().address();
      desks.put(address.hasLocalScope() ? node : address.toString(), desk);
    }
    return Map.copyOf(desks);
  }

  /** The node that held the round is not in the cluster (any more): the call is lost with it. */
  static Exchange.Refused nodeGone(JsonRpcRequest retry) {
    String why =
        "the gateway node that held this input_required round is gone, and the call with it:"
            + " send the request again without requestState";
    return new Exchange.Refused(
        400, JsonRpcCodec.toJson(JsonRpcResponse.failure(retry.id(), INVALID_PARAMS, why)));
  }
}
