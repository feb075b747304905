package dev.mcpsupervisor.actors;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.scaladsl.AskPattern;
import org.apache.pekko.dispatch.ExecutionContexts;
import org.apache.pekko.util.Timeout;
import scala.concurrent.ExecutionContext;
import scala.runtime.BoxedUnit;

/**
 * The ask pattern for the Java API, completing a plain {@link CompletableFuture} on the replying thread. The javadsl
 * ask converts a Scala future into a CompletionStage whose every callback runs asynchronously on the common pool; on a
 * machine whose common pool has one thread that means a new thread per callback (measured: ~170 µs of CPU per call).
 */
final class Asks {

  /** Runs a callback on the thread that completes the future: the replying actor's, for a few cheap statements. */
  private static final ExecutionContext SAME_THREAD = ExecutionContexts.fromExecutor(Runnable::run);

  private Asks() {}

  /**
   * @param onTimeout the value to complete with if no reply comes within {@code timeout} (or the ask fails)
   */
  static <Req, Res> CompletableFuture<Res> ask(
      RecipientRef<Req> target,
      Function<ActorRef<Res>, Req> message,
      Duration timeout,
      Scheduler scheduler,
      Function<Throwable, Res> onTimeout) {
    CompletableFuture<Res> answer = new CompletableFuture<>();
    new AskPattern.Askable<>(target)
        .<Res>ask(message::apply, Timeout.create(timeout), scheduler)
        .onComplete(
            result -> {
              if (result.isSuccess()) {
                answer.complete(result.get());
              } else {
                answer.complete(onTimeout.apply(result.failed().get()));
              }
              return BoxedUnit.UNIT;
            },
            SAME_THREAD);
    return answer;
  }
}
