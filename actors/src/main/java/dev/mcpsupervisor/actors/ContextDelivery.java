package dev.mcpsupervisor.actors;

import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One per context with a listener, on the caller's node (spawned by the guardian on register): the
 * only place that calls the context's {@link ContextListener}. A session sends it the context's
 * notifications, server-to-client requests and — for calls of this context — the answers, in
 * upstream order; Pekko keeps messages of one sender to one receiver in order, so a notification
 * the upstream sent before an answer reaches the listener before the caller's stage completes, on
 * one node or across nodes. Contexts without a listener have no such actor: their answers go
 * straight to the caller.
 */
public final class ContextDelivery {

  public interface Command {}

  /** {@code relatedTag}: the caller's tag of the call the notification belongs to, or null. */
  record Notification(String server, JsonRpcNotification notification, String relatedTag)
      implements Command {}

  /** A call's answer, passed on after everything the session sent before it. */
  record Answer(JsonRpcResponse response, ActorRef<JsonRpcResponse> replyTo) implements Command {}

  /**
   * Answered exactly once with {@link SessionActor.ServerRequestAnswer} to {@code session},
   * whatever the listener does.
   */
  record ServerRequest(
      String server,
      JsonRpcRequest request,
      String relatedTag,
      ActorRef<SessionActor.Command> session)
      implements Command {}

  /**
   * Node-local by nature (it carries the listener object), sent only by the guardian on the same
   * node; every message from sessions is serializable.
   */
  record ReplaceListener(ContextListener listener) implements Command {}

  /**
   * The context was released: drop the listener, keep passing answers of calls still in flight for
   * a grace period.
   */
  enum Retire implements Command {
    INSTANCE
  }

  private enum GraceElapsed implements Command {
    INSTANCE
  }

  public static Behavior<Command> create(
      String contextId, ContextListener listener, Duration retireGrace) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers ->
                    new ContextDelivery(contextId, listener, retireGrace, context, timers)
                        .listening()));
  }

  private final String contextId;
  private final Duration retireGrace;
  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private ContextListener listener;

  private ContextDelivery(
      String contextId,
      ContextListener listener,
      Duration retireGrace,
      ActorContext<Command> context,
      TimerScheduler<Command> timers) {
    this.contextId = contextId;
    this.listener = listener;
    this.retireGrace = retireGrace;
    this.context = context;
    this.timers = timers;
  }

  /**
   * One handler rather than a case per message: every idle downstream session of the gateway keeps
   * one of these, so the behaviour it holds stays small.
   */
  private Behavior<Command> listening() {
    return Behaviors.receiveMessage(this::onListening);
  }

  private Behavior<Command> onListening(Command message) {
    if (message instanceof Notification notification) {
      return onNotification(notification);
    } else if (message instanceof Answer answer) {
      return onAnswer(answer);
    } else if (message instanceof ServerRequest asked) {
      return onServerRequest(asked);
    } else if (message instanceof ReplaceListener replace) {
      return onReplaceListener(replace);
    } else if (message == Retire.INSTANCE) {
      return retire();
    }
    return Behaviors.unhandled();
  }

  private Behavior<Command> onNotification(Notification delivery) {
    try {
      listener.onNotification(delivery.server(), delivery.notification(), delivery.relatedTag());
    } catch (RuntimeException e) {
      context
          .getLog()
          .warn("listener of context {} failed on a notification: {}", contextId, e.toString());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onAnswer(Answer answer) {
    answer.replyTo().tell(answer.response());
    return Behaviors.same();
  }

  /**
   * The listener answers; whatever happens (a throw, a null, a failed stage) the session gets
   * exactly one answer.
   */
  private Behavior<Command> onServerRequest(ServerRequest asked) {
    CompletionStage<JsonRpcResponse> answer;
    try {
      answer = listener.onServerRequest(asked.server(), asked.request(), asked.relatedTag());
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    if (answer == null) {
      answer = CompletableFuture.failedFuture(new IllegalStateException("no answer"));
    }
    answer.whenComplete(
        (response, failure) ->
            replyToServerRequest(
                asked,
                failure == null && response != null
                    ? response
                    : noClient(
                        asked,
                        failure == null ? "no answer" : String.valueOf(failure.getMessage()))));
    return Behaviors.same();
  }

  private Behavior<Command> onReplaceListener(ReplaceListener replace) {
    listener = replace.listener();
    return Behaviors.same();
  }

  // --------------------------------------------------------------------------------------- retired

  private Behavior<Command> retire() {
    listener = null;
    timers.startSingleTimer(GraceElapsed.INSTANCE, retireGrace);
    return Behaviors.receive(Command.class)
        .onMessage(Answer.class, this::onAnswerWhileRetired)
        .onMessage(
            ServerRequest.class,
            asked -> {
              replyToServerRequest(
                  asked, noClient(asked, "context " + contextId + " was released"));
              return Behaviors.same();
            })
        .onMessage(GraceElapsed.class, notUsed -> Behaviors.stopped())
        .onAnyMessage(notUsed -> Behaviors.same())
        .build();
  }

  /**
   * Every answer passing through restarts the grace: a call still in flight keeps the way back
   * open.
   */
  private Behavior<Command> onAnswerWhileRetired(Answer answer) {
    timers.startSingleTimer(GraceElapsed.INSTANCE, retireGrace);
    return onAnswer(answer);
  }

  private static void replyToServerRequest(ServerRequest asked, JsonRpcResponse response) {
    asked
        .session()
        .tell(new SessionActor.ServerRequestAnswer(asked.request().id().asText(), response));
  }

  static JsonRpcResponse noClient(ServerRequest asked, String why) {
    return JsonRpcResponse.failure(
        asked.request().id(),
        SupervisorErrors.noClient(asked.server(), asked.request().method(), why));
  }
}
