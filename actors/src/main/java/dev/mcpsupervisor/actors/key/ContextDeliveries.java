package dev.mcpsupervisor.actors.key;

import dev.mcpsupervisor.actors.base.SupervisorSettings;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.actors.delivery.ContextListener;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * The delivery of each context with a listener, kept by the {@link KeyRouter}: a {@link
 * ContextDelivery} actor it spawns, or the listener's own mailbox ({@link
 * ContextListener.OwnMailbox}: no actor per context). Plain bookkeeping on the router's thread.
 */
final class ContextDeliveries {

  private final Map<String, ActorRef<ContextDelivery.Command>> deliveries = new HashMap<>();
  private final ActorContext<?> spawner;

  /** How long a released context's delivery actor still passes answers of calls in flight. */
  private final Duration retireGrace;

  ContextDeliveries(ActorContext<?> spawner, Duration retireGrace) {
    this.spawner = spawner;
    this.retireGrace = retireGrace;
  }

  /**
   * The retire grace for these servers: a released context's delivery actor passes answers of calls
   * in flight for the longest request timeout, plus the ask margin behind it.
   */
  static Duration retireGrace(SupervisorConfig config, SupervisorSettings settings) {
    return config.servers().values().stream()
        .map(ServerConfig::requestTimeout)
        .max(Comparator.naturalOrder())
        .orElse(Duration.ZERO)
        .plus(settings.askMargin());
  }

  /** The context's delivery, or null when it has no listener. */
  ActorRef<ContextDelivery.Command> of(String context) {
    return deliveries.get(context);
  }

  /**
   * A first listener's delivery, new; null when the context has one already, whose listener is
   * replaced.
   */
  ActorRef<ContextDelivery.Command> register(String context, ContextListener listener) {
    ActorRef<ContextDelivery.Command> delivery = deliveries.get(context);
    if (delivery != null) {
      delivery.tell(new ContextDelivery.ReplaceListener(listener));
      return null;
    }
    ActorRef<ContextDelivery.Command> created =
        listener instanceof ContextListener.OwnMailbox own
            ? own.mailbox()
            : spawner.spawnAnonymous(ContextDelivery.create(context, listener, retireGrace));
    deliveries.put(context, created);
    return created;
  }

  /** The context is released: its delivery retires (see {@link ContextDelivery.Retire}). */
  void release(String context) {
    ActorRef<ContextDelivery.Command> delivery = deliveries.remove(context);
    if (delivery != null) {
      delivery.tell(ContextDelivery.Retire.INSTANCE);
    }
  }
}
