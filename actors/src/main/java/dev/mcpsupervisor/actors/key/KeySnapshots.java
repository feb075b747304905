package dev.mcpsupervisor.actors.key;

import dev.mcpsupervisor.actors.base.SupervisorSettings;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.KeySnapshot;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.SessionSnapshot;
import dev.mcpsupervisor.actors.session.SessionActor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;

/**
 * A key's snapshot, gathered from its sessions by an {@link Aggregator} while the key actor goes
 * on.
 */
final class KeySnapshots {

  private KeySnapshots() {}

  /**
   * Asks the sessions in the table now; closing ones are reported as closed without asking (one may
   * have stopped already, and a question to a stopped actor would never be answered).
   */
  static Behavior<?> collect(
      String server,
      String keyId,
      String transport,
      String protocol,
      LeaseTable<ActorRef<SessionActor.Command>, ?> table,
      String circuit,
      int listWaiters,
      List<String> interactiveTools,
      SupervisorSettings settings,
      ActorRef<KeySnapshot> replyTo) {
    Map<Long, Integer> refCounts = new HashMap<>();
    List<ActorRef<SessionActor.Command>> live = new ArrayList<>();
    table
        .live()
        .forEach(
            s -> {
              refCounts.put(s.id, s.contexts.size());
              live.add(s.ref);
            });
    List<SessionSnapshot> closed =
        table.closing().stream()
            .map(
                s ->
                    new SessionSnapshot(
                        s.id, "closed", 0, 0, 0, 0, 0, "", s.openedAt, null, OptionalLong.empty()))
            .toList();
    Map<String, Long> leases = table.leases();
    return Aggregator.create(
        SessionSnapshot.class,
        ask -> live.forEach(session -> session.tell(new SessionActor.GetSnapshot(ask))),
        live.size(),
        settings.snapshotTimeout(),
        parts ->
            new KeySnapshot(
                server,
                keyId,
                transport,
                protocol,
                Stream.concat(
                        parts.stream()
                            .map(
                                part ->
                                    withRefCount(
                                        part, refCounts.getOrDefault(part.sessionId(), 0))),
                        closed.stream())
                    .sorted(Comparator.comparingLong(SessionSnapshot::sessionId))
                    .toList(),
                leases,
                circuit,
                listWaiters,
                interactiveTools),
        replyTo);
  }

  private static SessionSnapshot withRefCount(SessionSnapshot part, int refCount) {
    return new SessionSnapshot(
        part.sessionId(),
        part.state(),
        refCount,
        part.inFlight(),
        part.stashed(),
        part.awaitingAnswers(),
        part.restarts(),
        part.lastLoss(),
        part.startedAt(),
        part.connectedAt(),
        part.pid());
  }
}
