package dev.mcpsupervisor.actors.key;

import org.apache.pekko.actor.typed.ActorRef;

/** A live key actor and what the {@link KeyRouter} knows about it. */
final class KeyEntry {
  final String keyId;
  final long incarnation;
  final ActorRef<ServerKeyActor.Command> ref;

  final Passivation.Outbox outbox = new Passivation.Outbox();

  KeyEntry(String keyId, long incarnation, ActorRef<ServerKeyActor.Command> ref) {
    this.keyId = keyId;
    this.incarnation = incarnation;
    this.ref = ref;
  }
}
