package dev.mcpsupervisor.http.session;

import dev.mcpsupervisor.http.access.Identity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What {@link DownstreamSessions} knows about its sessions: which take messages, which are still
 * alive (routable or ending), whether new ones are taken, and who waits for a drain or for every
 * session to end. Mutable, owned by that actor alone; the routable sessions are the {@link
 * SessionDirectory} the HTTP routes read.
 */
final class SessionTable {

  /** Sessions that take messages, by id. */
  private final SessionDirectory routable;

  /**
   * Session actors not yet stopped (routable ones and those ending): a count, each stops once (an
   * entry per idle session would cost it 40 bytes).
   */
  private int alive;

  /** Whether new sessions are taken, and, once not, who waits for what. */
  private sealed interface Intake {}

  /** New sessions are taken; nothing drains, nobody waits. */
  private record Open() implements Intake {}

  /**
   * No new session is taken: a drain or the end of every session began.
   *
   * @param draining the sessions told to drain that have not drained yet
   * @param drainWaiters who hears once none is left draining
   * @param endAllWaiters who hears once every session actor has stopped
   */
  private record Closed(
      Set<String> draining, List<ActorRef<Done>> drainWaiters, List<ActorRef<Done>> endAllWaiters)
      implements Intake {}

  private Intake intake = new Open();

  SessionTable(SessionDirectory routable) {
    this.routable = routable;
  }

  boolean accepting() {
    return intake instanceof Open;
  }

  /** Takes no new session from now on. */
  private Closed close() {
    if (intake instanceof Closed closed) {
      return closed;
    }
    Closed closed = new Closed(new HashSet<>(), new ArrayList<>(), new ArrayList<>());
    intake = closed;
    return closed;
  }

  void started(RoutedSession session) {
    routable.add(session);
    alive++;
  }

  int routableCount() {
    return routable.size();
  }

  /** The routable session with this id, or null. */
  RoutedSession routable(String id) {
    return routable.get(id);
  }

  /**
   * The session a request on {@code path} from {@code caller} reaches (see {@link
   * RoutedSession#reachableBy}), or null.
   */
  RoutedSession reachable(String id, String path, Identity caller) {
    RoutedSession session = routable.get(id);
    return session != null && session.reachableBy(path, caller) ? session : null;
  }

  /** Takes a session out of routing (it is told to end, or it stopped); whether it was routable. */
  boolean unroute(String id) {
    return routable.remove(id);
  }

  /**
   * The idle sweep: every routable session is asked whether it is idle (not routed: it is no
   * activity, and counts for no passivation). One timer in the registry rather than one per session
   * (its timer, task and message cost an idle session some 200 bytes).
   */
  void askIdle() {
    routable.all().forEach(session -> session.ref.tell(DownstreamSession.IDLE_CHECK));
  }

  /**
   * How often the registry sweeps: a session idle for {@code idleTimeout} ends within a tenth more.
   */
  static Duration idleSweepInterval(Duration idleTimeout) {
    Duration tenth = idleTimeout.dividedBy(10);
    return tenth.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : tenth;
  }

  /** The routable sessions, a copy (safe to end them while iterating). */
  List<RoutedSession> routableSessions() {
    return new ArrayList<>(routable.all());
  }

  DownstreamSessions.Listing listing() {
    List<DownstreamSessions.SessionInfo> sessions = new ArrayList<>();
    routable.all().forEach(session -> sessions.add(session.info()));
    return new DownstreamSessions.Listing(accepting(), sessions);
  }

  /**
   * Stops taking sessions; {@code waiter} hears once none is draining any more. Returns the
   * sessions to tell to drain now: each routable one not told before.
   */
  List<RoutedSession> drain(ActorRef<Done> waiter) {
    Closed closed = close();
    closed.drainWaiters().add(waiter);
    List<RoutedSession> toDrain = new ArrayList<>();
    for (RoutedSession session : routable.all()) {
      if (closed.draining().add(session.id)) {
        toDrain.add(session);
      }
    }
    return toDrain;
  }

  /** A session drained (or stopped); the drain waiters hear once none is left draining. */
  void drained(String id) {
    if (intake instanceof Closed closed) {
      closed.draining().remove(id);
      replyIfDrained();
    }
  }

  /** The drain waiters hear once no session is left draining. */
  void replyIfDrained() {
    if (intake instanceof Closed closed && closed.draining().isEmpty()) {
      closed.drainWaiters().forEach(waiter -> waiter.tell(Done.getInstance()));
      closed.drainWaiters().clear();
    }
  }

  /** Stops taking sessions; {@code waiter} hears once every session actor has stopped. */
  void endAll(ActorRef<Done> waiter) {
    close().endAllWaiters().add(waiter);
  }

  /** A session actor stopped: no longer alive, nor routable. */
  void stopped(String id) {
    alive--;
    unroute(id);
  }

  /**
   * The end-all waiters hear once no session actor is alive and {@code othersReleased} (what else
   * must end first has ended).
   */
  void replyIfAllEnded(boolean othersReleased) {
    if (intake instanceof Closed closed && alive == 0 && othersReleased) {
      closed.endAllWaiters().forEach(waiter -> waiter.tell(Done.getInstance()));
      closed.endAllWaiters().clear();
    }
  }
}
