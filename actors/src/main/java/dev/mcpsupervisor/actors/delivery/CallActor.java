package dev.mcpsupervisor.actors.delivery;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;

/**
 * A call that has an actor of its own (a round-trip call, which holds its caller's rounds): spawned
 * by the key actor that serves the call, as it takes it, so that no one actor spawns every call and
 * the spawn costs no delivery of its own. Until then the call is answered where it says (a
 * rejection before any key actor).
 */
public interface CallActor {

  /** The call's actor, to be spawned. */
  Behavior<ContextDelivery.Command> behavior();

  /**
   * The call as it goes on once {@code actor} (spawned from {@link #behavior()}) runs: its answer
   * and everything else for it go to that actor.
   */
  UpstreamCall answeredBy(ActorRef<ContextDelivery.Command> actor, UpstreamCall call);
}
