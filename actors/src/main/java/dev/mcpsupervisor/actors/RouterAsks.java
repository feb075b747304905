package dev.mcpsupervisor.actors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.base.SupervisorSettings;
import dev.mcpsupervisor.actors.delivery.CallerKind;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.actors.key.KeyRouter;
import dev.mcpsupervisor.actors.key.LeaseDirectory;
import dev.mcpsupervisor.actors.session.AcquireReply;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The asks {@link SessionSupervisor} makes of the key router (a call is no ask: its answer
 * completes the caller's future), and what each answers when no reply comes in time: a JSON-RPC
 * error for a call, a failed acquire, or a failure (never "done") for a release or snapshot.
 * Separate from the facade so the public API reads as arguments checked and handed on, while the
 * timeouts, the shutdown check and a cancelled caller's stage telling the router live together
 * here.
 */
final class RouterAsks {

  private final ActorSystem<?> system;
  private final ActorRef<KeyRouter.Command> router;

  /** Where a leased call goes without the router, once the router has routed one. */
  private final LeaseDirectory leases;

  private final SupervisorSettings settings;

  RouterAsks(
      ActorSystem<?> system,
      ActorRef<KeyRouter.Command> router,
      LeaseDirectory leases,
      SupervisorSettings settings) {
    this.system = system;
    this.router = router;
    this.leases = leases;
    this.settings = settings;
  }

  boolean isTerminated() {
    return system.whenTerminated().isCompleted();
  }

  /**
   * One call through the router; the stage completes with the upstream's answer or a JSON-RPC
   * error, and cancelling it cancels the call.
   */
  CompletableFuture<JsonRpcResponse> request(
      String context,
      String server,
      long callId,
      String method,
      JsonNode params,
      Duration effectiveDeadline,
      String tag) {
    CompletableFuture<JsonRpcResponse> answer = new CompletableFuture<>();
    if (isTerminated()) {
      answer.complete(
          JsonRpcResponse.failure(LongNode.valueOf(callId), SupervisorErrors.shuttingDown()));
      return answer;
    }
    // no ask: the answer completes the caller's future where it is given (no actor of its own);
    // the session answers at the deadline, this timer is only a safety net behind it
    Cancellable overdue =
        system
            .scheduler()
            .scheduleOnce(
                effectiveDeadline.plus(settings.askMargin()),
                () ->
                    answer.complete(
                        JsonRpcResponse.failure(
                            LongNode.valueOf(callId),
                            isTerminated()
                                ? SupervisorErrors.shuttingDown()
                                : SupervisorErrors.timeout(
                                    method, server, effectiveDeadline.toMillis()))),
                Asks.sameThreadContext());
    answer.whenComplete(
        (response, failure) -> {
          overdue.cancel();
          if (answer.isCancelled() && !isTerminated() && !leases.cancel(context, server, callId)) {
            router.tell(new KeyRouter.Cancel(context, server, callId));
          }
        });
    UpstreamCall call =
        UpstreamCall.leased(
            context, server, callId, method, params, effectiveDeadline, answer::complete, tag);
    // straight to the key actor of the context's lease once the router has routed a call there
    if (!leases.send(call)) {
      router.tell(new KeyRouter.Missed(call));
    }
    return answer;
  }

  /** A lease for the context; completes with the initialize result or fails with the error. */
  CompletionStage<JsonNode> acquire(String context, String server, CallerKind caller) {
    CompletableFuture<AcquireReply> reply =
        Asks.ask(
            router,
            replyTo -> new KeyRouter.Acquire(context, server, caller, replyTo),
            settings.acquireTimeout(),
            system.scheduler(),
            failure ->
                AcquireReply.failed(
                    isTerminated()
                        ? SupervisorErrors.shuttingDown()
                        : SupervisorErrors.unavailableBecause(
                            server,
                            "not ready within " + settings.acquireTimeout().toMillis() + " ms")));
    CompletableFuture<JsonNode> ready = new CompletableFuture<>();
    reply.whenComplete(
        (answer, notUsed) -> {
          if (answer.error() != null) {
            ready.completeExceptionally(new SupervisorException(answer.error()));
          } else {
            ready.complete(answer.initializeResult());
          }
        });
    return ready;
  }

  /**
   * Asks the router; completes when it confirms, fails (never completes as if done) when it does
   * not in time.
   */
  <R> CompletionStage<R> confirmed(
      String what, Function<ActorRef<R>, KeyRouter.Command> message, Duration timeout) {
    return Asks.ask(router, message, timeout, system.scheduler())
        .handle(
            (reply, failure) -> {
              if (failure != null) {
                throw new SupervisorException(
                    isTerminated()
                        ? SupervisorErrors.shuttingDown()
                        : SupervisorErrors.unavailableBecause(
                            "supervisor",
                            what + " not confirmed within " + timeout.toMillis() + " ms"));
              }
              return reply;
            });
  }
}
