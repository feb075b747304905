package dev.mcpsupervisor.http;

import dev.mcpsupervisor.actors.Passivation;
import java.time.Instant;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What {@link DownstreamSessions} keeps about one routable session: where it lives, who owns it,
 * and what the admin page shows. Mutable, owned by that actor alone.
 */
final class RoutedSession {

  final String id;
  final String path;
  final Identity owner;
  final ActorRef<DownstreamSession.Command> ref;
  // epoch milliseconds: two Instant objects per idle session cost more than these two longs
  final long createdAt = System.currentTimeMillis();
  long lastActivity = createdAt;
  final Passivation.Outbox outbox = new Passivation.Outbox();
  String protocolVersion;
  String clientName;
  String clientVersion;

  RoutedSession(String id, String path, Identity owner, ActorRef<DownstreamSession.Command> ref) {
    this.id = id;
    this.path = path;
    this.owner = owner;
    this.ref = ref;
  }

  /**
   * Whether a request on {@code requestPath} from {@code caller} reaches this session: only on the
   * endpoint that created it, only from the identity that created it.
   */
  boolean reachableBy(String requestPath, Identity caller) {
    return path.equals(requestPath) && owner.equals(caller);
  }

  /** Routes a command to the session, counted (see {@link Passivation.Outbox}) and dated. */
  void deliver(DownstreamSession.Command command) {
    outbox.sent();
    lastActivity = System.currentTimeMillis();
    ref.tell(command);
  }

  /** What the session's client told at initialize, for the admin page. */
  void describe(String protocolVersion, String clientName, String clientVersion) {
    this.protocolVersion = protocolVersion;
    this.clientName = clientName;
    this.clientVersion = clientVersion;
  }

  DownstreamSessions.SessionInfo info() {
    return new DownstreamSessions.SessionInfo(
        SessionIds.redact(id),
        path,
        protocolVersion,
        clientName,
        clientVersion,
        Instant.ofEpochMilli(createdAt),
        Instant.ofEpochMilli(lastActivity));
  }
}
