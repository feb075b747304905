package dev.mcpsupervisor.http.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class SessionHomesTest {

  @Test
  void theSessionsLeastRecentlyAskedForAreForgottenFirst() {
    SessionHomes homes = new SessionHomes(2);
    homes.found("s1", "node-a");
    homes.found("s2", "node-b");
    assertEquals("node-a", homes.of("s1"));
    homes.found("s3", "node-c");
    assertNull(homes.of("s2"), "the least recently asked for");
    assertEquals("node-a", homes.of("s1"));
    assertEquals("node-c", homes.of("s3"));
  }

  @Test
  void aSessionFoundAgainMovesAndOneWithoutARecordIsForgotten() {
    SessionHomes homes = new SessionHomes();
    homes.found("s1", "node-a");
    homes.found("s1", "node-b");
    assertEquals("node-b", homes.of("s1"));
    homes.forget("s1");
    assertNull(homes.of("s1"));
  }
}
