package dev.mcpsupervisor.actors.call;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.base.SupervisorSettings;
import dev.mcpsupervisor.actors.delivery.CallActor;
import dev.mcpsupervisor.actors.delivery.CallerKind;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.actors.key.KeyRouter;
import dev.mcpsupervisor.protocol.LogLevels;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.Isolation;
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
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One call of {@link dev.mcpsupervisor.actors.SessionSupervisor#call}, from its start to its
 * answer: the call's own delivery, spawned by the key actor that serves it ({@link CallActor}). The
 * session sends here — not to the context — what concerns this call: its progress and logs, the
 * server requests attributed to it, its answer. Server requests the caller declared a capability
 * for wait ({@link CallInputs}) and go to the caller in rounds ({@link CallOutcome.InputRequired}),
 * gathered for a moment so that requests sent together go out together; the caller's answers go
 * back to the session; the rest are refused at once. The call stays in flight upstream meanwhile,
 * under its deadline: an abandoned round ends with it (timed out or cancelled upstream, every
 * waiting request refused). Stops with the answer.
 *
 * <p>Its states: {@code callerWaiting} (the caller waits on a stage, which the next round or the
 * answer completes), {@code roundOut} (the caller holds a round) and {@code cancelling} (cancelled
 * upstream: only the answer is awaited).
 */
public final class RoundTripCall {

  /** Its messages are a delivery's, so that the session tells it as it tells any delivery. */
  interface Command extends ContextDelivery.Command {}

  /** The caller answered round {@code round}; {@code next} gets what comes after. */
  record AnswerRound(
      int round, Map<String, JsonNode> responses, CompletableFuture<CallOutcome> next)
      implements Command {}

  /** The caller gives the call up. */
  enum Cancel implements Command {
    INSTANCE
  }

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
   * @param caller who calls ({@link CallOptions#caller()})
   * @param isolation the server's: a leaseless call to an {@code isolation: context} server needs a
   *     session of its own, whose lease ends with the answer
   */
  public record Call(
      String context,
      String server,
      long callId,
      String method,
      JsonNode params,
      Duration deadline,
      CallerKind caller,
      Isolation isolation) {

    boolean releasesAfter() {
      return caller.leaseless() && isolation == Isolation.CONTEXT;
    }
  }

  /**
   * The caller's side of a running call, free of actor types: answers rounds and cancels. Once the
   * call is answered, whatever the caller asks completes with that answer.
   */
  static final class Handle {
    private final ActorRef<ContextDelivery.Command> actor;
    private final CompletableFuture<JsonRpcResponse> answered;

    private Handle(
        ActorRef<ContextDelivery.Command> actor, CompletableFuture<JsonRpcResponse> answered) {
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

  /**
   * Sends the call to the router, which hands it to its key actor, which spawns its actor; answers
   * the stage of its first outcome.
   */
  public static CompletionStage<CallOutcome> start(
      ActorRef<KeyRouter.Command> router,
      SupervisorSettings settings,
      Call call,
      CallOptions options) {
    CompletableFuture<CallOutcome> first = new CompletableFuture<>();
    router.tell(
        new KeyRouter.Request(
            new UpstreamCall(
                call.context(),
                call.server(),
                call.callId(),
                call.method(),
                call.params(),
                call.deadline(),
                // rejected before a key actor took it: no actor, nothing to release
                response -> first.complete(new CallOutcome.Complete(response)),
                null,
                null,
                null,
                call.caller(),
                options.answers(CallOptions.ClientCapability.ROOTS)),
            new CallActor() {
              @Override
              public Behavior<ContextDelivery.Command> behavior() {
                return create(call, options, router, first, settings);
              }

              @Override
              public UpstreamCall answeredBy(
                  ActorRef<ContextDelivery.Command> actor, UpstreamCall sent) {
                return sent.withReplies(response -> actor.tell(new Answered(response)), actor);
              }
            }));
    return first;
  }

  /**
   * @param first completes with the call's first outcome
   */
  private static Behavior<ContextDelivery.Command> create(
      Call call,
      CallOptions options,
      ActorRef<KeyRouter.Command> router,
      CompletableFuture<CallOutcome> first,
      SupervisorSettings settings) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers ->
                    new RoundTripCall(call, options, router, settings, context, timers)
                        .start(first)));
  }

  private final Call call;
  private final CallOptions options;
  private final ActorRef<KeyRouter.Command> router;
  private final SupervisorSettings settings;
  private final ActorContext<ContextDelivery.Command> context;
  private final TimerScheduler<ContextDelivery.Command> timers;
  private final CallInputs<ActorRef<ContextDelivery.ServerRequestAnswer>> inputs;
  private final Handle handle;

  /** The number of the last round given to the caller. */
  private int round;

  private RoundTripCall(
      Call call,
      CallOptions options,
      ActorRef<KeyRouter.Command> router,
      SupervisorSettings settings,
      ActorContext<ContextDelivery.Command> context,
      TimerScheduler<ContextDelivery.Command> timers) {
    this.call = call;
    this.options = options;
    this.router = router;
    this.settings = settings;
    this.context = context;
    this.timers = timers;
    this.inputs = new CallInputs<>(call.server(), options);
    this.handle = new Handle(context.getSelf(), new CompletableFuture<>());
  }

  private Behavior<ContextDelivery.Command> start(CompletableFuture<CallOutcome> first) {
    // a caller who cancelled before this actor ran is told here, at once
    handle.cancelWhenCancelled(first);
    // the session times the call from its receipt: this is a safety net behind it
    timers.startSingleTimer(Overdue.INSTANCE, call.deadline().plus(settings.askMargin()));
    return callerWaiting(first);
  }

  // ------------------------------------------------------------------------------------ the states

  /** The caller waits on {@code caller}: a round opens once the requests sent together are in. */
  private Behavior<ContextDelivery.Command> callerWaiting(CompletableFuture<CallOutcome> caller) {
    return whileRunning(caller)
        .onMessage(
            ContextDelivery.ServerRequest.class, asked -> onServerRequest(asked, caller, true))
        .onMessage(
            GatherElapsed.class,
            notUsed -> inputs.anyWaiting() ? openRound(caller) : Behaviors.same())
        .onMessage(AnswerRound.class, this::stray)
        .onMessage(Cancel.class, notUsed -> cancelling(caller))
        .build();
  }

  /** The caller holds round {@link #round}: what is asked meanwhile waits for its answer. */
  private Behavior<ContextDelivery.Command> roundOut() {
    return whileRunning(null)
        .onMessage(
            ContextDelivery.ServerRequest.class, asked -> onServerRequest(asked, null, false))
        .onMessage(GatherElapsed.class, notUsed -> Behaviors.same())
        .onMessage(AnswerRound.class, this::onAnswerRound)
        .onMessage(Cancel.class, notUsed -> cancelling(null))
        .build();
  }

  /**
   * Cancelled upstream (told once, here): only the answer is awaited; {@code caller} (null when the
   * caller held a round) gets it.
   */
  private Behavior<ContextDelivery.Command> cancelling(CompletableFuture<CallOutcome> caller) {
    router.tell(new KeyRouter.Cancel(call.context(), call.server(), call.callId()));
    return whileCancelled(caller);
  }

  private Behavior<ContextDelivery.Command> whileCancelled(CompletableFuture<CallOutcome> caller) {
    return whileAnswerAwaited(caller)
        .onMessage(
            ContextDelivery.ServerRequest.class, asked -> onServerRequest(asked, null, false))
        .onMessage(AnswerRound.class, this::stray)
        .onMessage(Overdue.class, notUsed -> timedOut(caller))
        .onAnyMessage(notUsed -> Behaviors.same()) // a gathering's end, a second cancel
        .build();
  }

  /** What every state but the cancelled one handles alike. */
  private BehaviorBuilder<ContextDelivery.Command> whileRunning(
      CompletableFuture<CallOutcome> caller) {
    return whileAnswerAwaited(caller)
        .onMessage(
            Overdue.class,
            notUsed -> {
              router.tell(new KeyRouter.Cancel(call.context(), call.server(), call.callId()));
              return timedOut(caller);
            });
  }

  /** What every state handles alike: the answer, notifications, the deadline's safety net. */
  private BehaviorBuilder<ContextDelivery.Command> whileAnswerAwaited(
      CompletableFuture<CallOutcome> caller) {
    BehaviorBuilder<ContextDelivery.Command> builder =
        Behaviors.receive(ContextDelivery.Command.class)
            .onMessage(ContextDelivery.Answer.class, answer -> finish(answer.response(), caller))
            .onMessage(Answered.class, answered -> finish(answered.response(), caller))
            .onMessage(
                ContextDelivery.Notification.class,
                notification -> {
                  onNotification(notification.notification());
                  return Behaviors.same();
                })
            .onSignal(PostStop.class, notUsed -> onStopped(caller));
    return builder;
  }

  // ---------------------------------------------------------------------------------- the messages

  /**
   * @param gathers the caller waits: a request that waits for it starts the gathering of a round
   */
  private Behavior<ContextDelivery.Command> onServerRequest(
      ContextDelivery.ServerRequest asked, CompletableFuture<CallOutcome> caller, boolean gathers) {
    CallInputs.Arrival<ActorRef<ContextDelivery.ServerRequestAnswer>> arrival =
        inputs.arrived(asked.request(), asked.session());
    if (arrival
        instanceof CallInputs.Replied<ActorRef<ContextDelivery.ServerRequestAnswer>> replied) {
      send(replied.reply());
    } else if (arrival
        instanceof CallInputs.Missing<ActorRef<ContextDelivery.ServerRequestAnswer>> missing) {
      send(missing.refusal());
      router.tell(new KeyRouter.Cancel(call.context(), call.server(), call.callId()));
      return finish(
          JsonRpcResponse.failure(
              LongNode.valueOf(call.callId()),
              SupervisorErrors.missingCapability(missing.capability())),
          caller);
    } else if (gathers && !timers.isTimerActive(GatherElapsed.INSTANCE)) {
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

  private Behavior<ContextDelivery.Command> openRound(CompletableFuture<CallOutcome> caller) {
    round++;
    caller.complete(new CallOutcome.InputRequired(round, inputs.round(), handle));
    return roundOut();
  }

  private Behavior<ContextDelivery.Command> onAnswerRound(AnswerRound answer) {
    if (answer.round() != round) {
      return stray(answer);
    }
    inputs.answer(answer.responses()).forEach(this::send);
    // left unanswered, or asked while the round was out: the next round goes at once
    return inputs.anyWaiting() ? openRound(answer.next()) : callerWaiting(answer.next());
  }

  /** The outcome object lets a round be answered once: only a stray message gets here. */
  private Behavior<ContextDelivery.Command> stray(AnswerRound answer) {
    answer
        .next()
        .completeExceptionally(
            new IllegalStateException("round " + answer.round() + " is not the one out"));
    return Behaviors.same();
  }

  private Behavior<ContextDelivery.Command> timedOut(CompletableFuture<CallOutcome> caller) {
    return finish(
        JsonRpcResponse.failure(
            LongNode.valueOf(call.callId()),
            SupervisorErrors.timeout(call.method(), call.server(), call.deadline().toMillis())),
        caller);
  }

  /**
   * The call is answered: nothing waits upstream for this caller any more. {@code caller}: the
   * stage the caller waits on, or null when it holds a round (its answer then comes through the
   * handle).
   */
  private Behavior<ContextDelivery.Command> finish(
      JsonRpcResponse response, CompletableFuture<CallOutcome> caller) {
    inputs.refuseAll("the call it belongs to is answered already").forEach(this::send);
    if (call.releasesAfter()) {
      router.tell(new KeyRouter.ReleaseCallHold(call.context(), call.server()));
    }
    handle.answered.complete(response);
    if (caller != null) {
      caller.complete(new CallOutcome.Complete(response));
    }
    return Behaviors.stopped();
  }

  /**
   * Stopped, answered or not (the supervisor shuts down): every stage still completes, and a
   * context its calls keep hears that this one ended, however it ended.
   */
  private Behavior<ContextDelivery.Command> onStopped(CompletableFuture<CallOutcome> caller) {
    if (call.caller() == CallerKind.STATELESS_IN_CONTEXT) {
      router.tell(new KeyRouter.KeptCallEnded(call.context()));
    }
    JsonRpcResponse shuttingDown =
        JsonRpcResponse.failure(LongNode.valueOf(call.callId()), SupervisorErrors.shuttingDown());
    handle.answered.complete(shuttingDown);
    if (caller != null) {
      caller.complete(new CallOutcome.Complete(shuttingDown));
    }
    return Behaviors.same();
  }

  private void send(CallInputs.Reply<ActorRef<ContextDelivery.ServerRequestAnswer>> reply) {
    reply
        .session()
        .tell(new ContextDelivery.ServerRequestAnswer(reply.localId(), reply.response()));
  }
}
