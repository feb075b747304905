package dev.mcpsupervisor.actors.key;

import dev.mcpsupervisor.actors.base.SupervisorObserver;
import dev.mcpsupervisor.actors.base.SupervisorSettings;
import dev.mcpsupervisor.actors.telemetry.McpTelemetry;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.upstream.UpstreamConnector;
import org.apache.pekko.actor.InvalidActorNameException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The root of the supervisor's actor system: it bootstraps and nothing else. It starts the {@link
 * KeyRouter} (which routes every call) and spawns, on request, the actors an integration runs on
 * the same system (the HTTP gateway's session registry), so that nothing needs {@code
 * systemActorOf} and every actor is a child of this one.
 */
public final class SupervisorGuardian {

  public interface Command {}

  /** Answers with the router that the Java API sends every call to. */
  public record GetRouter(ActorRef<ActorRef<KeyRouter.Command>> replyTo) implements Command {}

  /** Spawns {@code behavior} as a child named {@code name}; answers with its ref. */
  public record Spawn<T>(Behavior<T> behavior, String name, ActorRef<ActorRef<T>> replyTo)
      implements Command {}

  public static Behavior<Command> create(
      SupervisorConfig config,
      SupervisorSettings settings,
      UpstreamConnector connector,
      SupervisorObserver observer,
      McpTelemetry telemetry,
      LeaseDirectory leases) {
    return Behaviors.setup(
        context -> {
          ActorRef<KeyRouter.Command> router =
              context.spawn(
                  KeyRouter.create(config, settings, connector, observer, telemetry, leases),
                  "keys");
          return Behaviors.receive(Command.class)
              .onMessage(
                  GetRouter.class,
                  get -> {
                    get.replyTo().tell(router);
                    return Behaviors.same();
                  })
              .onMessage(
                  Spawn.class,
                  spawn -> {
                    onSpawn(context, spawn);
                    return Behaviors.same();
                  })
              .build();
        });
  }

  private static <T> void onSpawn(
      org.apache.pekko.actor.typed.javadsl.ActorContext<Command> context, Spawn<T> spawn) {
    try {
      spawn.replyTo().tell(context.spawn(spawn.behavior(), spawn.name(), Props.empty()));
    } catch (InvalidActorNameException e) {
      // the asker's own mistake must not stop the guardian (and the system with it): it gets no
      // answer
      context.getLog().error("cannot spawn {}: {}", spawn.name(), e.getMessage());
    }
  }
}
