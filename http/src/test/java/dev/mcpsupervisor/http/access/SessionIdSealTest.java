package dev.mcpsupervisor.http.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

class SessionIdSealTest {

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final SessionIdSeal OURS = SessionIdSeal.ofSecret("ours");
  private static final String TAG = SessionIds.nodeTag("pekko://mcp@10.0.0.1:25520");

  @Test
  void everyNodeOfTheClusterVerifiesAnIdOneOfThemIssued() {
    String id = SessionIds.generate(RANDOM, TAG, OURS);
    assertTrue(SessionIdSeal.ofSecret("ours").verifies(id), id);
    assertEquals(TAG, SessionIds.nodeTagOf(id), "the tag still names the node");
    assertTrue(id.chars().allMatch(c -> c > 0x20 && c < 0x7f), "visible ASCII only: " + id);
  }

  @Test
  void anotherClustersIdsAndTamperedOnesDoNotVerify() {
    String theirs = SessionIds.generate(RANDOM, TAG, SessionIdSeal.ofSecret("theirs"));
    assertFalse(OURS.verifies(theirs));
    String id = SessionIds.generate(RANDOM, TAG, OURS);
    int dot = id.lastIndexOf('.');
    String otherRandom = SessionIds.generate(RANDOM) + id.substring(dot);
    assertFalse(OURS.verifies(TAG + "." + otherRandom), "a MAC moved to another id");
    assertFalse(OURS.verifies(id.substring(0, dot)), "no MAC");
    assertFalse(OURS.verifies(SessionIds.generate(RANDOM)), "a single node's id");
  }
}
