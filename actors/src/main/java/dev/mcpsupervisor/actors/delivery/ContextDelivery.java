package dev.mcpsupervisor.actors.delivery;

import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.protocol.InputRequests;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.slf4j.Logger;

/**
 * One per context with a listener, on the caller's node (spawned by the router on register): the
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
  public record Notification(String server, JsonRpcNotification notification, String relatedTag)
      implements Command {}

  /** A call's answer, passed on after everything the session sent before it. */
  public record Answer(JsonRpcResponse response, Consumer<JsonRpcResponse> replyTo)
      implements Command {}

  /**
   * Answered exactly once with a {@link ServerRequestAnswer} to {@code session}, whatever the
   * listener does.
   */
  public record ServerRequest(
      String server,
      JsonRpcRequest request,
      String relatedTag,
      ActorRef<ServerRequestAnswer> session)
      implements Command {}

  /**
   * A context's answer to a server-to-client request; {@code localId} is the id the context was
   * shown.
   */
  public record ServerRequestAnswer(String localId, JsonRpcResponse response) {}

  /**
   * Node-local by nature (it carries the listener object), sent only by the router on the same
   * node; every message from sessions is serializable.
   */
  public record ReplaceListener(ContextListener listener) implements Command {}

  /**
   * The context was released: drop the listener, keep passing answers of calls still in flight for
   * a grace period.
   */
  public enum Retire implements Command {
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
    if (message instanceof ReplaceListener replace) {
      listener = replace.listener();
    } else if (message == Retire.INSTANCE) {
      return retire();
    } else {
      deliver(message, listener, contextId, context.getLog());
    }
    return Behaviors.same();
  }

  /**
   * What a context's delivery does with {@code message}: also for an actor that is its context's
   * own delivery ({@link ContextListener.OwnMailbox}), which ignores the rest (replacing a
   * listener, retiring).
   */
  public static void deliver(
      Command message, ContextListener listener, String contextId, Logger log) {
    if (message instanceof Notification delivery) {
      try {
        listener.onNotification(delivery.server(), delivery.notification(), delivery.relatedTag());
      } catch (RuntimeException e) {
        log.warn("listener of context {} failed on a notification: {}", contextId, e.toString());
      }
    } else if (message instanceof Answer answer) {
      answer.replyTo().accept(answer.response());
    } else if (message instanceof ServerRequest asked) {
      askListener(listener, asked);
    }
  }

  /**
   * What a released context's delivery does with {@code message}: answers of calls in flight still
   * pass, server requests are refused, the rest is dropped.
   */
  public static void deliverReleased(Command message, String contextId) {
    if (message instanceof Answer answer) {
      answer.replyTo().accept(answer.response());
    } else if (message instanceof ServerRequest asked) {
      replyToServerRequest(asked, noClient(asked, "context " + contextId + " was released"));
    }
  }

  /**
   * The listener answers; whatever happens (a throw, a null, a failed stage) the session gets
   * exactly one answer. It sees the request as a client does: without the key an upstream named for
   * a 2026-07-28 round (only a round-trip call shows keys).
   */
  private static void askListener(ContextListener listener, ServerRequest asked) {
    CompletionStage<JsonRpcResponse> answer;
    try {
      answer =
          listener.onServerRequest(
              asked.server(), InputRequests.withoutKey(asked.request()), asked.relatedTag());
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
  }

  // --------------------------------------------------------------------------------------- retired

  private Behavior<Command> retire() {
    listener = null;
    timers.startSingleTimer(GraceElapsed.INSTANCE, retireGrace);
    return Behaviors.receive(Command.class)
        .onMessage(Answer.class, this::onAnswerWhileRetired)
        .onMessage(GraceElapsed.class, notUsed -> Behaviors.stopped())
        .onMessage(ServerRequest.class, asked -> whenReleased(asked))
        .onAnyMessage(notUsed -> Behaviors.same())
        .build();
  }

  /**
   * Every answer passing through restarts the grace: a call still in flight keeps the way back
   * open.
   */
  private Behavior<Command> onAnswerWhileRetired(Answer answer) {
    timers.startSingleTimer(GraceElapsed.INSTANCE, retireGrace);
    return whenReleased(answer);
  }

  private Behavior<Command> whenReleased(Command message) {
    deliverReleased(message, contextId);
    return Behaviors.same();
  }

  private static void replyToServerRequest(ServerRequest asked, JsonRpcResponse response) {
    asked.session().tell(new ServerRequestAnswer(asked.request().id().asText(), response));
  }

  static JsonRpcResponse noClient(ServerRequest asked, String why) {
    return JsonRpcResponse.failure(
        asked.request().id(),
        SupervisorErrors.noClient(asked.server(), asked.request().method(), why));
  }
}
