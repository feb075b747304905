package dev.mcpsupervisor.actors;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.scaladsl.AskPattern;
import org.apache.pekko.dispatch.ExecutionContexts;
import org.apache.pekko.util.Timeout;
import scala.concurrent.ExecutionContext;
import scala.concurrent.Future;
import scala.jdk.javaapi.FutureConverters;
import scala.runtime.BoxedUnit;

/**
 * The ask pattern for the Java API, completing a plain {@link CompletableFuture} on the replying
 * thread. The javadsl ask converts a Scala future into a CompletionStage whose every callback runs
 * asynchronously on the common pool; on a machine whose common pool has one thread that means a new
 * thread per callback (measured: ~170 µs of CPU per call). The same holds for every CompletionStage
 * a Pekko javadsl hands out (streams, HTTP entities): {@link #sameThread} turns one into a plain
 * future.
 */
public final class Asks {

  /**
   * Runs a callback on the thread that completes the future: the replying actor's, for a few cheap
   * statements.
   */
  private static final ExecutionContext SAME_THREAD = ExecutionContexts.fromExecutor(Runnable::run);

  private Asks() {}

  /** Runs tasks on the calling thread: for a few cheap statements, e.g. a scheduler's callback. */
  public static ExecutionContext sameThreadContext() {
    return SAME_THREAD;
  }

  /**
   * @param onTimeout the value to complete with if no reply comes within {@code timeout} (or the
   *     ask fails)
   */
  public static <Req, Res> CompletableFuture<Res> ask(
      RecipientRef<Req> target,
      Function<ActorRef<Res>, Req> message,
      Duration timeout,
      Scheduler scheduler,
      Function<Throwable, Res> onTimeout) {
    return sameThread(
        new AskPattern.Askable<>(target)
            .<Res>ask(message::apply, Timeout.create(timeout), scheduler),
        onTimeout);
  }

  /**
   * Like {@link #ask(RecipientRef, Function, Duration, Scheduler, Function)}, failing with a
   * TimeoutException.
   */
  public static <Req, Res> CompletableFuture<Res> ask(
      RecipientRef<Req> target,
      Function<ActorRef<Res>, Req> message,
      Duration timeout,
      Scheduler scheduler) {
    return sameThread(
        new AskPattern.Askable<>(target)
            .<Res>ask(message::apply, Timeout.create(timeout), scheduler),
        null);
  }

  /**
   * A plain future completing on the thread that completes {@code stage}, so that its callbacks
   * (non-async ones) run there too: a stage backed by a Scala future is unwrapped to it instead of
   * being called back on another thread.
   */
  public static <T> CompletableFuture<T> sameThread(CompletionStage<T> stage) {
    return sameThread(FutureConverters.asScala(stage), null);
  }

  /**
   * @param onFailure null: fail with the future's failure
   */
  private static <T> CompletableFuture<T> sameThread(
      Future<T> future, Function<Throwable, T> onFailure) {
    CompletableFuture<T> answer = new CompletableFuture<>();
    future.onComplete(
        result -> {
          if (result.isSuccess()) {
            answer.complete(result.get());
          } else if (onFailure != null) {
            answer.complete(onFailure.apply(result.failed().get()));
          } else {
            answer.completeExceptionally(result.failed().get());
          }
          return BoxedUnit.UNIT;
        },
        SAME_THREAD);
    return answer;
  }
}
