package dev.mcpsupervisor.actors.session;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What a session reports to its key actor, once per change, without actors. */
class SessionHealthTest {

  @Test
  void consecutiveFailuresAreReportedOnceAtTheThresholdAndAnAnswerResetsTheCount() {
    SessionHealth health = new SessionHealth(3);
    assertFalse(health.failed());
    assertFalse(health.failed());
    health.answered();
    assertFalse(health.failed());
    assertFalse(health.failed());
    assertTrue(health.failed(), "three in a row");
    assertFalse(health.failed(), "reported once");
    health.reconnected();
    assertFalse(health.failed());
    assertFalse(health.failed());
    assertTrue(health.failed(), "a new connection may be reported again");
  }

  @Test
  void saturationIsReportedOnlyWhenItChanges() {
    SessionHealth health = new SessionHealth(3);
    assertFalse(health.saturationChanged(false));
    assertTrue(health.saturationChanged(true));
    assertFalse(health.saturationChanged(true));
    assertTrue(health.saturationChanged(false));
  }
}
