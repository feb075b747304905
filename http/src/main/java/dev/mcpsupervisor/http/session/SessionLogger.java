package dev.mcpsupervisor.http.session;

import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.slf4j.Logger;

/**
 * A downstream session's logger, named {@code dev.mcpsupervisor.http.session.DownstreamSession}.
 * Pekko names an actor's logger after its behaviour's class, which for a session is a lambda;
 * naming it in setup would build a logging context per session at once, and most sessions never
 * log: it is renamed when the first line is written.
 */
final class SessionLogger {

  private static final String NAME = DownstreamSession.class.getName();

  private SessionLogger() {}

  /** The session's logger; fetching it sets the actor's logging MDC (on its own thread only). */
  static Logger of(ActorContext<?> context) {
    Logger log = context.getLog();
    if (!NAME.equals(log.getName())) {
      context.setLoggerName(NAME);
      log = context.getLog();
    }
    return log;
  }
}
