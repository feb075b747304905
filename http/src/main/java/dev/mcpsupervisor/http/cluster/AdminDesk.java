package dev.mcpsupervisor.http.cluster;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.Asks;
import dev.mcpsupervisor.protocol.CrossNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * A cluster node's admin desk: the operations page of any node shows every member's servers and
 * sessions, and an operator's action on another member's session is carried out there. It gathers
 * the members' reports ({@link Gather}: each member's desk asked at once, each bounded by {@link
 * #MEMBER_TIMEOUT}; one that does not answer is shown {@code unreachable}, merged by {@link
 * ClusterView}), answers other desks with this node's report, and passes an action to the desk of
 * the node it names. The operator was authenticated by the node they reached; a desk acts for any
 * member of the cluster. The desks find each other through the receptionist. One per node, in a
 * cluster only.
 */
public final class AdminDesk {

  public static final ServiceKey<Command> KEY =
      ServiceKey.create(Command.class, "mcp-supervisor-admin-desk");

  /** How long a member's report or action is waited for: a slow member never holds the page. */
  public static final Duration MEMBER_TIMEOUT = Duration.ofSeconds(3);

  /** What this node does for its desk: its own report, and the operator's actions here. */
  public interface Local {
    /** This node's {@code /admin/sessions} document; fails when it cannot be had. */
    CompletionStage<ObjectNode> report();

    /** Carries out {@code action} on this node (whatever its {@code node} and reply say). */
    CompletionStage<Outcome> act(Action action);
  }

  /** An action's answer: the HTTP status and JSON body the operator gets. */
  public record Outcome(int status, ObjectNode body) implements CrossNode {
    /** A body of a {@code status} word and a {@code message}, as every admin action answers. */
    public static Outcome of(int status, String word, String message) {
      return new Outcome(
          status, JsonRpcCodec.emptyObject().put("status", word).put("message", message));
    }
  }

  public interface Command {}

  /** From this node's admin routes: the cluster's report; fails as this node's own report does. */
  public record Gather(ActorRef<Gathered> replyTo) implements Command {}

  /** The merged report, or why this node's own report could not be had. */
  public record Gathered(ObjectNode report, Throwable failure) {}

  /** This node's own report, for another member's desk (null: this node cannot give it now). */
  public record Report(ActorRef<NodeReport> replyTo) implements Command, CrossNode {}

  public record NodeReport(ObjectNode report) implements CrossNode {}

  /** An operator's action on {@code node}: carried out here when it is this node, else there. */
  public sealed interface Action extends Command, CrossNode permits Restart, Close {
    String node();

    ActorRef<Outcome> replyTo();

    /** The same action, answered to {@code other}: as passed on to the desk of its node. */
    Action answeredTo(ActorRef<Outcome> other);
  }

  /** Restart upstream session {@code sessionId} of server key {@code keyId}. */
  public record Restart(
      String node, String keyId, long sessionId, String detail, ActorRef<Outcome> replyTo)
      implements Action {
    @Override
    public Action answeredTo(ActorRef<Outcome> other) {
      return new Restart(node, keyId, sessionId, detail, other);
    }
  }

  /** Close the downstream session shown as {@code shownId}. */
  public record Close(String node, String shownId, String detail, ActorRef<Outcome> replyTo)
      implements Action {
    @Override
    public Action answeredTo(ActorRef<Outcome> other) {
      return new Close(node, shownId, detail, other);
    }
  }

  private record DesksChanged(Receptionist.Listing listing) implements Command {}

  /**
   * @param self this node's address, as its members list it
   */
  public static Behavior<Command> create(String self, Local local) {
    return Behaviors.setup(
        context -> {
          context.getSystem().receptionist().tell(Receptionist.register(KEY, context.getSelf()));
          context
              .getSystem()
              .receptionist()
              .tell(
                  Receptionist.subscribe(
                      KEY, context.messageAdapter(Receptionist.Listing.class, DesksChanged::new)));
          return new AdminDesk(context, self, local).serving(Map.of());
        });
  }

  private final ActorContext<Command> context;
  private final String self;
  private final Local local;

  private AdminDesk(ActorContext<Command> context, String self, Local local) {
    this.context = context;
    this.self = self;
    this.local = local;
  }

  /** {@code others}: the other members' desks, by their node's address. */
  private Behavior<Command> serving(Map<String, ActorRef<Command>> others) {
    return Behaviors.receive(Command.class)
        .onMessage(DesksChanged.class, changed -> serving(othersOf(changed.listing())))
        .onMessage(
            Gather.class,
            gather -> {
              gather(others, gather.replyTo());
              return Behaviors.same();
            })
        .onMessage(
            Report.class,
            report -> {
              local
                  .report()
                  .whenComplete((own, failure) -> report.replyTo().tell(new NodeReport(own)));
              return Behaviors.same();
            })
        .onMessage(
            Action.class,
            action -> {
              carryOut(others, action);
              return Behaviors.same();
            })
        .build();
  }

  /** Every member's report at once, each bounded; merged once all are in. */
  private void gather(Map<String, ActorRef<Command>> others, ActorRef<Gathered> replyTo) {
    Map<String, CompletableFuture<ObjectNode>> asked = new HashMap<>();
    others.forEach(
        (node, desk) ->
            asked.put(
                node,
                Asks.<Command, NodeReport>ask(
                        desk,
                        Report::new,
                        MEMBER_TIMEOUT,
                        context.getSystem().scheduler(),
                        failure -> new NodeReport(null))
                    .thenApply(NodeReport::report)));
    CompletableFuture<ObjectNode> own = local.report().toCompletableFuture();
    CompletableFuture.allOf(asked.values().toArray(CompletableFuture[]::new))
        .thenCombine(own, (allIn, report) -> report)
        .whenComplete(
            (report, failure) -> {
              if (failure != null) {
                replyTo.tell(new Gathered(null, failure));
                return;
              }
              Map<String, ObjectNode> reports = new HashMap<>();
              asked.forEach((node, answer) -> reports.put(node, answer.join()));
              replyTo.tell(new Gathered(ClusterView.merge(self, report, reports), null));
            });
  }

  /** Carries out an action here, or passes it to the desk of its node and relays the outcome. */
  private void carryOut(Map<String, ActorRef<Command>> others, Action action) {
    ActorRef<Outcome> replyTo = action.replyTo();
    if (action.node().equals(self)) {
      local
          .act(action)
          .whenComplete(
              (outcome, failure) ->
                  replyTo.tell(
                      failure == null
                          ? outcome
                          : Outcome.of(503, "unavailable", "the action failed: " + failure)));
      return;
    }
    ActorRef<Command> desk = others.get(action.node());
    if (desk == null) {
      replyTo.tell(Outcome.of(404, "unknown", "no member " + action.node() + " in this cluster"));
      return;
    }
    Asks.<Command, Outcome>ask(
            desk,
            action::answeredTo,
            MEMBER_TIMEOUT,
            context.getSystem().scheduler(),
            failure ->
                Outcome.of(
                    504,
                    ClusterView.UNREACHABLE,
                    "member "
                        + action.node()
                        + " did not answer within "
                        + MEMBER_TIMEOUT.toSeconds()
                        + " s: the action may or may not have been carried out there"))
        .thenAccept(replyTo::tell);
  }

  /** The other members' desks in the listing, by their node's address. */
  private Map<String, ActorRef<Command>> othersOf(Receptionist.Listing listing) {
    Map<String, ActorRef<Command>> byAddress = new HashMap<>();
    for (ActorRef<Command> desk : listing.getServiceInstances(KEY)) {
      var address = desk.path().address();
      if (!address.hasLocalScope()) {
        byAddress.put(address.toString(), desk);
      }
    }
    return Map.copyOf(byAddress);
  }
}
