package dev.mcpsupervisor.actors.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The passivation handshake shared by key actors and downstream sessions, without actors. */
class PassivationTest {

  @Test
  void aChildIsStoppedOnlyIfItHasProcessedEverythingSentToIt() {
    Passivation.Outbox router = new Passivation.Outbox();
    Passivation.Inbox child = new Passivation.Inbox();
    router.sent();
    child.processed();
    long reported = child.idleReport().orElseThrow();
    router.sent(); // a message on its way while the idle report travels
    assertFalse(router.mayStop(reported), "the message on its way keeps the child");
    child.processed();
    assertTrue(router.mayStop(child.idleReport().orElseThrow()));
  }

  @Test
  void aChildReportsEachCountOnce() {
    Passivation.Inbox child = new Passivation.Inbox();
    assertEquals(OptionalLong.of(0), child.idleReport());
    assertEquals(
        OptionalLong.empty(), child.idleReport(), "nothing new since: the router's answer stands");
    child.processed();
    assertEquals(OptionalLong.of(1), child.idleReport());
  }
}
