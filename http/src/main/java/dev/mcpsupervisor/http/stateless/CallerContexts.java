package dev.mcpsupervisor.http.stateless;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.http.access.CallerIdentity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The lifetimes of the callers' identity contexts ({@link CallerIdentity}), in which 2026-07-28
 * requests call {@code isolation: context} servers, so that one caller keeps its upstream session
 * across requests: a request enters its caller's context before its first call and leaves it once
 * answered; a context unused for the idle timeout is released in the supervisor, and a request for
 * it waits until that release is done ({@link IdentityContexts} decides). States: {@link #active}
 * and, once the gateway stops, {@link #stopping}.
 */
public final class CallerContexts {

  public interface Command {}

  /** A request of this context's caller is to run: {@code replyTo} hears when it may. */
  public record Enter(String context, ActorRef<Done> replyTo) implements Command {}

  /** A request that entered is answered (or given up). */
  record Leave(String context) implements Command {}

  /** The gateway stops: release every context, reply once all are released. */
  public record ReleaseAll(ActorRef<Done> replyTo) implements Command {}

  /** The context was not used for the idle timeout (also the timer's key). */
  private record Idle(String context) implements Command {}

  /** The supervisor released the context's leases. */
  private record Released(String context) implements Command {}

  /**
   * @param idleTimeout {@code gateway.sessionIdleTimeout} in force, read each time a context's last
   *     request leaves
   */
  public static Behavior<Command> create(
      SessionSupervisor supervisor, Supplier<Duration> idleTimeout) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers -> new CallerContexts(supervisor, idleTimeout, context, timers).active()));
  }

  private final SessionSupervisor supervisor;
  private final Supplier<Duration> idleTimeout;
  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final IdentityContexts<Enter> contexts = new IdentityContexts<>();

  private CallerContexts(
      SessionSupervisor supervisor,
      Supplier<Duration> idleTimeout,
      ActorContext<Command> context,
      TimerScheduler<Command> timers) {
    this.supervisor = supervisor;
    this.idleTimeout = idleTimeout;
    this.context = context;
    this.timers = timers;
  }

  private Behavior<Command> active() {
    return Behaviors.receive(Command.class)
        .onMessage(Enter.class, this::onEnter)
        .onMessage(Leave.class, this::onLeave)
        .onMessage(Idle.class, this::onIdle)
        .onMessage(Released.class, this::onReleased)
        .onMessage(ReleaseAll.class, this::onReleaseAll)
        .build();
  }

  /**
   * Every context is being released; {@code waiters} hear once none is left. Requests no longer
   * come (the gateway answers 503), and one that still does runs as it is.
   */
  private Behavior<Command> stopping(List<ActorRef<Done>> waiters) {
    if (contexts.isEmpty()) {
      waiters.forEach(waiter -> waiter.tell(Done.getInstance()));
    }
    return Behaviors.receive(Command.class)
        .onMessage(
            Enter.class,
            enter -> {
              enter.replyTo().tell(Done.getInstance());
              return Behaviors.same();
            })
        .onMessage(
            Released.class,
            released -> {
              contexts
                  .released(released.context())
                  .forEach(waiting -> waiting.replyTo().tell(Done.getInstance()));
              return stopping(waiters);
            })
        .onMessage(
            ReleaseAll.class,
            releaseAll -> {
              List<ActorRef<Done>> more = new ArrayList<>(waiters);
              more.add(releaseAll.replyTo());
              return stopping(more);
            })
        .onAnyMessage(ignored -> Behaviors.same())
        .build();
  }

  private Behavior<Command> onEnter(Enter enter) {
    switch (contexts.enter(enter.context(), enter)) {
      case FIRST -> enter.replyTo().tell(Done.getInstance());
      case AGAIN -> {
        timers.cancel(new Idle(enter.context()));
        enter.replyTo().tell(Done.getInstance());
      }
      case WAIT -> {
        // taken again once the release is done
      }
    }
    return Behaviors.same();
  }

  private Behavior<Command> onLeave(Leave leave) {
    if (contexts.left(leave.context())) {
      Idle idle = new Idle(leave.context());
      timers.startSingleTimer(idle, idle, idleTimeout.get());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onIdle(Idle idle) {
    if (contexts.idle(idle.context())) {
      release(idle.context());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onReleased(Released released) {
    contexts.released(released.context()).forEach(this::admit);
    return Behaviors.same();
  }

  private Behavior<Command> onReleaseAll(ReleaseAll releaseAll) {
    contexts.releaseAll().forEach(this::release);
    return stopping(List.of(releaseAll.replyTo()));
  }

  /** A request that waited for its context's release enters it now. */
  private void admit(Enter waiting) {
    onEnter(waiting);
  }

  private void release(String identity) {
    timers.cancel(new Idle(identity));
    context.pipeToSelf(
        supervisor.releaseAll(identity),
        (done, failure) -> {
          if (failure != null) {
            context
                .getLog()
                .warn(
                    "the leases of an identity context were not released: {}",
                    failure.getMessage());
          }
          return new Released(identity);
        });
  }
}
