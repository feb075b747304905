package dev.mcpsupervisor.actors.key;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A short-lived actor that asks several actors the same question, waits for every answer (or the
 * timeout) and replies once with the combination of what arrived. Used for snapshots: a stopped
 * session or key never blocks one.
 */
final class Aggregator {

  interface Command {}

  private record Reply(Object part) implements Command {}

  private enum TimedOut implements Command {
    INSTANCE
  }

  private Aggregator() {}

  /**
   * @param ask sends the question to every actor, with the given reply address
   * @param expected how many answers {@code ask} asks for
   */
  static <P, R> Behavior<Command> create(
      Class<P> partType,
      Consumer<ActorRef<P>> ask,
      int expected,
      Duration timeout,
      Function<List<P>, R> combine,
      ActorRef<R> replyTo) {
    return Behaviors.setup(
        context -> {
          if (expected == 0) {
            replyTo.tell(combine.apply(List.of()));
            return Behaviors.stopped();
          }
          ask.accept(context.messageAdapter(partType, Reply::new));
          return Behaviors.withTimers(
              timers -> {
                timers.startSingleTimer(TimedOut.INSTANCE, timeout);
                return collecting(new ArrayList<>(expected), partType, expected, combine, replyTo);
              });
        });
  }

  private static <P, R> Behavior<Command> collecting(
      List<P> parts,
      Class<P> partType,
      int expected,
      Function<List<P>, R> combine,
      ActorRef<R> replyTo) {
    return Behaviors.receive(Command.class)
        .onMessage(
            Reply.class,
            reply -> {
              parts.add(partType.cast(reply.part()));
              return parts.size() < expected ? Behaviors.same() : done(parts, combine, replyTo);
            })
        .onMessage(TimedOut.class, notUsed -> done(parts, combine, replyTo))
        .build();
  }

  private static <P, R> Behavior<Command> done(
      List<P> parts, Function<List<P>, R> combine, ActorRef<R> replyTo) {
    replyTo.tell(combine.apply(parts));
    return Behaviors.stopped();
  }
}
