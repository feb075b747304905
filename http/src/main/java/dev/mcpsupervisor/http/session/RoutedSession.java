package dev.mcpsupervisor.http.session;

import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.access.SessionIds;
import java.time.Instant;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What {@link DownstreamSessions} keeps about one routable session: where it lives, who owns it,
 * its {@link RouteGate}, and what the admin page shows. Written by that actor alone, but for {@link
 * #deliver}, which the HTTP routes call from any thread ({@link SessionDirectory}).
 */
final class RoutedSession {

  final String id;
  final String path;
  final Identity owner;
  final ActorRef<DownstreamSession.Command> ref;
  // epoch milliseconds: two Instant objects per idle session cost more than these two longs
  final long createdAt = System.currentTimeMillis();
  final RouteGate gate;
  // written by the routes' threads, read by the registry for the admin page
  private volatile long lastActivity = createdAt;
  String protocolVersion;
  String clientName;
  String clientVersion;

  RoutedSession(
      String id,
      String path,
      Identity owner,
      ActorRef<DownstreamSession.Command> ref,
      RouteGate gate) {
    this.id = id;
    this.path = path;
    this.owner = owner;
    this.ref = ref;
    this.gate = gate;
  }

  /**
   * Whether a request on {@code requestPath} from {@code caller} reaches this session: only on the
   * endpoint that created it, only from the identity that created it.
   */
  boolean reachableBy(String requestPath, Identity caller) {
    return path.equals(requestPath) && owner.equals(caller);
  }

  /**
   * Routes a command to the session, counted through its gate and dated; false when the gate is
   * closed (the session ends).
   */
  boolean deliver(DownstreamSession.Command command) {
    if (!gate.pass()) {
      return false;
    }
    lastActivity = System.currentTimeMillis();
    ref.tell(command);
    return true;
  }

  /** Whether the session ends (its gate is closed): then it does not stop unexpectedly. */
  boolean ending() {
    return gate.closed();
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
        owner.name(),
        protocolVersion,
        clientName,
        clientVersion,
        Instant.ofEpochMilli(createdAt),
        Instant.ofEpochMilli(lastActivity));
  }
}
