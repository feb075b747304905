package dev.mcpsupervisor.actors.session;

import java.time.Duration;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The two timers a call of a session can have: its deadline, and the wait before a "still
 * initializing" retry. Separate from {@link SessionCalls} so the timer keys and the messages they
 * send live in one place, and a finished call has both cancelled together.
 */
final class CallTimers {

  record DeadlineExceeded(long callId) implements SessionCalls.CallCommand {}

  record RetryCall(long callId) implements SessionCalls.CallCommand {}

  private record DeadlineTimer(long callId) {}

  private record RetryTimer(long callId) {}

  private final TimerScheduler<SessionActor.Command> timers;

  CallTimers(TimerScheduler<SessionActor.Command> timers) {
    this.timers = timers;
  }

  void startDeadline(long callId, Duration deadline) {
    timers.startSingleTimer(new DeadlineTimer(callId), new DeadlineExceeded(callId), deadline);
  }

  void scheduleRetry(long callId, Duration delay) {
    timers.startSingleTimer(new RetryTimer(callId), new RetryCall(callId), delay);
  }

  /** The call is answered: neither timer may fire for it. */
  void cancel(long callId) {
    timers.cancel(new DeadlineTimer(callId));
    timers.cancel(new RetryTimer(callId));
  }
}
