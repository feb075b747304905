package dev.mcpsupervisor.actors.key;

import org.apache.pekko.actor.typed.ActorRef;

/** A live key actor and what the {@link KeyRouter} knows about it. */
final class KeyEntry {
  final String keyId;
  final String server;
  final long incarnation;
  final ActorRef<ServerKeyActor.Command> ref;

  /** What the router and the callers of the {@link LeaseDirectory} count their messages by. */
  final KeyGate gate;

  KeyEntry(
      String keyId,
      String server,
      long incarnation,
      ActorRef<ServerKeyActor.Command> ref,
      KeyGate gate) {
    this.keyId = keyId;
    this.server = server;
    this.incarnation = incarnation;
    this.ref = ref;
    this.gate = gate;
  }
}
