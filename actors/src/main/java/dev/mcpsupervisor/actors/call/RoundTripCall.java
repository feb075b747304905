package dev.mcpsupervisor.actors.call;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.base.SupervisorSettings;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.actors.key.KeyRouter;
import dev.mcpsupervisor.actors.key.SupervisorGuardian;
import dev.mcpsupervisor.protocol.LogLevels;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One call of {@link dev.mcpsupervisor.actors.SessionSupervisor#call}, from its start to its
 * answer, on the caller's node (spawned by the guardian): the call's own delivery. The session
 * sends here — not to the context — what concerns this call: its progress and logs, the server
 * requests attributed to it, its answer. Server requests the caller declared a capability for wait
 * ({@link CallInputs}) and go to the caller in rounds ({@link CallOutcome.InputRequired}), gathered
 * for a moment so that requests sent together go out together; the caller's answers go back to the
 * session; the rest are refused at once. The call stays in flight upstream meanwhile, under its
 * deadline: an abandoned round ends with it (timed out or cancelled upstream, every waiting request
 * refused). Stops with the answer.
 */
public final class RoundTripCall {

  interface Command {}

  /** The caller answered round {@code round}; {@code next} gets what comes after. */
  record AnswerRound(
      int round, Map<String, JsonNode> responses, CompletableFuture<CallOutcome> next)
      implements Command {}

  /** The caller gives the call up. */
  enum Cancel implements Command {
    INSTANCE
  }

  /** What a session sends the call's own delivery. */
  private record Delivered(ContextDelivery.Command message) implements Command {}

  /** An answer that came straight to the call's reply address (rejected before any session). */
  private record Answered(JsonRpcResponse response) implements Command {}

  private enum GatherElapsed implements Command {
    INSTANCE
  }

  /** The session should have answered by now: a safety net behind its deadline. */
  private enum Overdue implements Command {
    INSTANCE
  }

  /**
   * What the call asks, as the Java API took it.
   *
   * @param releaseAfter the call's lease ends with its answer (a leaseless call to an {@code
   *     isolation: context} server, which needs a session of its own)
   */
  public record Call(
      String context,
      String server,
      long callId,
      String method,
      JsonNode params,
      Duration deadline,
      boolean releaseAfter) {}

  /**
   * The caller's side of a running call, free of actor types: answers rounds and cancels. Once the
   * call is answered, whatever the caller asks completes with that answer.
   */
  static final class Handle {
    private final ActorRef<Command> actor;
    private final CompletableFuture<JsonRpcResponse> answered;

    private Handle(ActorRef<Command> actor, CompletableFuture<JsonRpcResponse> answered) {
      this.actor = actor;
      this.answered = answered;
    }

    void answer(int round, Map<String, JsonNode> responses, CompletableFuture<CallOutcome> next) {
      // if the call is over (and its actor gone), its answer is what comes next
      answered.thenAccept(response -> next.complete(new CallOutcome.Complete(response)));
      cancelWhenCancelled(next);
      actor.tell(new AnswerRound(round, CallOptions.withoutNulls(responses), next));
    }

    CompletionStage<CallOutcome> cancel() {
      actor.tell(Cancel.INSTANCE);
      return answered.thenApply(CallOutcome.Complete::new);
    }

    CompletionStage<CallOutcome.Complete> finalAnswer() {
      return answered.thenApply(CallOutcome.Complete::new);
    }

    /** A caller who cancels the stage it waits on gives the call up. */
    void cancelWhenCancelled(CompletableFuture<CallOutcome> stage) {
      stage.whenComplete(
          (outcome, failure) -> {
            if (stage.isCancelled()) {
              actor.tell(Cancel.INSTANCE);
            }
          });
    }
  }

  /** Starts the call as a child of the guardian; answers the stage of its first outcome. */
  public static CompletionStage<CallOutcome> start(
      ActorRef<SupervisorGuardian.Command> guardian,
      ActorRef<KeyRouter.Command> router,
      SupervisorSettings settings,
      Call call,
      CallOptions options) {
    CompletableFuture<CallOutcome> first = new CompletableFuture<>();
    guardian.tell(new SupervisorGuardian.Start(create(call, options, router, first, settings)));
    return first;
  }

  /**
   * @param first completes with the call's first outcome
   */
  private static Behavior<Command> create(
      Call call,
      CallOptions options,
      ActorRef<KeyRouter.Command> router,
      CompletableFuture<CallOutcome> first,
      SupervisorSettings settings) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers ->
                    new RoundTripCall(call, options, router, first, settings, context, timers)
                        .start()));
  }

  private final Call call;
  private final CallOptions options;
  private final ActorRef<KeyRouter.Command> router;
  private final SupervisorSettings settings;
  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final CallInputs<ActorRef<ContextDelivery.ServerRequestAnswer>> inputs;
  private final Handle handle;

  /** The stage the caller waits on now; null while the caller holds a round. */
  private CompletableFuture<CallOutcome> waitingCaller;

  private int round;
  private boolean cancelSent;

  private RoundTripCall(
      Call call,
      CallOptions options,
      ActorRef<KeyRouter.Command> router,
      CompletableFuture<CallOutcome> first,
      SupervisorSettings settings,
      ActorContext<Command> context,
      TimerScheduler<Command> timers) {
    this.call = call;
    this.options = options;
    this.router = router;
    this.settings = settings;
    this.context = context;
    this.timers = timers;
    this.inputs = new CallInputs<>(call.server(), options);
    this.handle = new Handle(context.getSelf(), new CompletableFuture<>());
    this.waitingCaller = first;
  }

  private Behavior<Command> start() {
    handle.cancelWhenCancelled(waitingCaller);
    ActorRef<ContextDelivery.Command> callDelivery =
        context.messageAdapter(ContextDelivery.Command.class, Delivered::new);
    ActorRef<JsonRpcResponse> replyTo =
        context.messageAdapter(JsonRpcResponse.class, Answered::new);
    router.tell(
        new KeyRouter.Request(
            new UpstreamCall(
                call.context(),
                call.server(),
                call.callId(),
                call.method(),
                call.params(),
                call.deadline(),
                replyTo,
                null,
                null,
                callDelivery,
                options.leaseless(),
                options.answers(CallOptions.ClientCapability.ROOTS)),
            options.statelessCaller()));
    timers.startSingleTimer(Overdue.INSTANCE, call.deadline().plus(settings.askMargin()));
    return running();
  }

  private Behavior<Command> running() {
    return Behaviors.receive(Command.class)
        .onMessage(Delivered.class, this::onDelivered)
        .onMessage(Answered.class, answered -> finish(answered.response()))
        .onMessage(GatherElapsed.class, notUsed -> onGatherElapsed())
        .onMessage(AnswerRound.class, this::onAnswerRound)
        .onMessage(Cancel.class, notUsed -> onCancel())
        .onMessage(Overdue.class, notUsed -> onOverdue())
        .onSignal(PostStop.class, notUsed -> onStopped())
        .build();
  }

  private Behavior<Command> onDelivered(Delivered delivered) {
    ContextDelivery.Command message = delivered.message();
    if (message instanceof ContextDelivery.Answer answer) {
      return finish(answer.response());
    }
    if (message instanceof ContextDelivery.ServerRequest asked) {
      return onServerRequest(asked);
    }
    if (message instanceof ContextDelivery.Notification notification) {
      onNotification(notification.notification());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onServerRequest(ContextDelivery.ServerRequest asked) {
    CallInputs.Arrival<ActorRef<ContextDelivery.ServerRequestAnswer>> arrival =
        inputs.arrived(asked.request(), asked.session());
    if (arrival
        instanceof CallInputs.Replied<ActorRef<ContextDelivery.ServerRequestAnswer>> replied) {
      send(replied.reply());
    } else if (arrival
        instanceof CallInputs.Missing<ActorRef<ContextDelivery.ServerRequestAnswer>> missing) {
      send(missing.refusal());
      onCancel();
      return finish(
          JsonRpcResponse.failure(
              LongNode.valueOf(call.callId()),
              SupervisorErrors.missingCapability(missing.capability())));
    } else if (waitingCaller != null && !timers.isTimerActive(GatherElapsed.INSTANCE)) {
      // requests sent together go out in one round
      timers.startSingleTimer(GatherElapsed.INSTANCE, settings.inputGatherWindow());
    }
    return Behaviors.same();
  }

  private void onNotification(JsonRpcNotification notification) {
    String method = notification.method();
    if (McpMethods.NOTIFICATION_CANCELLED.equals(method)) {
      // the upstream withdrew a request it sent (under the id the session gave it)
      JsonNode params = notification.params();
      inputs.withdrawn(params == null ? "" : params.path("requestId").asText());
      return;
    }
    if (McpMethods.NOTIFICATION_MESSAGE.equals(method) && !wantsLog(notification)) {
      return;
    }
    try {
      options.notifications().accept(notification);
    } catch (RuntimeException e) {
      context
          .getLog()
          .warn("notification consumer of call {} failed: {}", call.callId(), e.toString());
    }
  }

  private boolean wantsLog(JsonRpcNotification log) {
    String level = log.params() == null ? "" : log.params().path("level").asText("");
    return options.logLevel() != null && LogLevels.passes(level, options.logLevel());
  }

  private Behavior<Command> onGatherElapsed() {
    if (waitingCaller != null && inputs.anyWaiting()) {
      openRound();
    }
    return Behaviors.same();
  }

  private void openRound() {
    round++;
    CompletableFuture<CallOutcome> caller = waitingCaller;
    waitingCaller = null;
    caller.complete(new CallOutcome.InputRequired(round, inputs.round(), handle));
  }

  private Behavior<Command> onAnswerRound(AnswerRound answer) {
    if (answer.round() != round || waitingCaller != null) {
      // the outcome object lets a round be answered once: only a stray message gets here
      answer
          .next()
          .completeExceptionally(
              new IllegalStateException("round " + answer.round() + " is not the one out"));
      return Behaviors.same();
    }
    inputs.answer(answer.responses()).forEach(this::send);
    waitingCaller = answer.next();
    if (inputs.anyWaiting()) {
      openRound(); // left unanswered, or asked while the round was out
    }
    return Behaviors.same();
  }

  private Behavior<Command> onCancel() {
    if (!cancelSent) {
      cancelSent = true;
      router.tell(new KeyRouter.Cancel(call.context(), call.server(), call.callId()));
    }
    return Behaviors.same();
  }

  private Behavior<Command> onOverdue() {
    onCancel();
    return finish(
        JsonRpcResponse.failure(
            LongNode.valueOf(call.callId()),
            SupervisorErrors.timeout(call.method(), call.server(), call.deadline().toMillis())));
  }

  /** The call is answered: nothing waits upstream for this caller any more. */
  private Behavior<Command> finish(JsonRpcResponse response) {
    inputs.refuseAll("the call it belongs to is answered already").forEach(this::send);
    if (call.releaseAfter()) {
      router.tell(new KeyRouter.ReleaseCallHold(call.context(), call.server()));
    }
    handle.answered.complete(response);
    if (waitingCaller != null) {
      waitingCaller.complete(new CallOutcome.Complete(response));
    }
    return Behaviors.stopped();
  }

  /** Stopped without an answer (the supervisor shuts down): every stage still completes. */
  private Behavior<Command> onStopped() {
    JsonRpcResponse shuttingDown =
        JsonRpcResponse.failure(LongNode.valueOf(call.callId()), SupervisorErrors.shuttingDown());
    handle.answered.complete(shuttingDown);
    if (waitingCaller != null) {
      waitingCaller.complete(new CallOutcome.Complete(shuttingDown));
    }
    return Behaviors.same();
  }

  private void send(CallInputs.Reply<ActorRef<ContextDelivery.ServerRequestAnswer>> reply) {
    reply
        .session()
        .tell(new ContextDelivery.ServerRequestAnswer(reply.localId(), reply.response()));
  }
}
