package dev.mcpsupervisor.actors.session;

import dev.mcpsupervisor.actors.base.SupervisorSettings;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * A ready session's keep-alive: every {@code pingInterval} a ping, but only when no call is in
 * flight (an answer to a call proves the connection as well); a ping unanswered within {@code
 * pingTimeout} means the connection is dead. Runs on the session's thread, with its timers.
 */
final class KeepAlive {

  enum Tick implements SessionActor.Command {
    INSTANCE
  }

  record TimedOut(long upstreamId) implements SessionActor.Command {}

  private enum TimerKey {
    PING,
    PING_TIMEOUT
  }

  private final SessionCalls calls;
  private final SupervisorSettings settings;
  private final TimerScheduler<SessionActor.Command> timers;

  KeepAlive(
      SessionCalls calls,
      SupervisorSettings settings,
      TimerScheduler<SessionActor.Command> timers) {
    this.calls = calls;
    this.settings = settings;
    this.timers = timers;
  }

  void start() {
    timers.startTimerWithFixedDelay(TimerKey.PING, Tick.INSTANCE, settings.pingInterval());
  }

  void stop() {
    timers.cancel(TimerKey.PING);
    timers.cancel(TimerKey.PING_TIMEOUT);
  }

  void onTick(SessionCalls.Link link) {
    long pingId = calls.pingIfIdle(link);
    if (pingId >= 0) {
      timers.startSingleTimer(TimerKey.PING_TIMEOUT, new TimedOut(pingId), settings.pingTimeout());
    }
  }

  /** Whether the ping that timed out is still unanswered (else its answer came just in time). */
  boolean isUnanswered(TimedOut timedOut) {
    return calls.pingStillPending(timedOut.upstreamId());
  }

  String deadReason() {
    return "ping timed out after " + settings.pingTimeout().toMillis() + " ms";
  }
}
