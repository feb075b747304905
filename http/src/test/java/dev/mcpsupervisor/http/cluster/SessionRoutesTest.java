package dev.mcpsupervisor.http.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.actors.cluster.Membership.MemberView;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.access.SessionIdSeal;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.session.SessionRecord;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SessionRoutesTest {

  // nodes: an address and an incarnation's uid
  private static final String A = "pekko://mcp@10.0.0.1:25520#-4211";
  private static final String B = "pekko://mcp@10.0.0.2:25520#7302";
  private static final String C = "pekko://mcp@10.0.0.3:25520#933";

  /** A restarted on its address. */
  private static final String A_AGAIN = "pekko://mcp@10.0.0.1:25520#5150";

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final SessionIdSeal SEAL = SessionIdSeal.ofSecret("the secret of the routes");

  private static final MemberView UP_A = member(A, "up", true);
  private static final MemberView UP_B = member(B, "up", true);
  private static final MemberView UP_C = member(C, "up", true);

  @Test
  void aSessionGoesToTheNodeItsIdNamesWhileThatNodeServes() {
    String id = SessionIds.generate(RANDOM, SessionIds.nodeTag(A), SEAL);
    assertEquals(
        new SessionRoutes.To(A),
        routes(B, true, List.of(A, B, C), UP_A, UP_B, UP_C).of(id, null, 0, null));
  }

  @Test
  void anUnreachableNodeIsWaitedForAndOneThatHasJustJoinedToo() {
    String id = SessionIds.generate(RANDOM, SessionIds.nodeTag(A), SEAL);
    MemberView unreachable = member(A, "up", false);
    assertEquals(
        SessionRoutes.WAIT,
        routes(B, true, List.of(A, B), unreachable, UP_B).of(id, null, 0, null));
    assertEquals(
        SessionRoutes.WAIT,
        routes(B, true, List.of(B), UP_A, UP_B).of(id, null, 0, null),
        "a member whose desk is not listed yet");
  }

  /**
   * A member still joining is passed nothing, though its desk is listed: Pekko drops a watch of an
   * actor on a member that is not up, so a request lost there would never be known lost.
   */
  @Test
  void aJoiningNodeIsWaitedForAndAdoptsNothingUntilItIsUp() {
    MemberView joining = member(A, "joining", true);
    for (int i = 0; i < 50; i++) {
      String ofA = SessionIds.generate(RANDOM, SessionIds.nodeTag(A), SEAL);
      assertEquals(
          SessionRoutes.WAIT, routes(B, true, List.of(A, B), joining, UP_B).of(ofA, null, 0, null));
      String ofC = SessionIds.generate(RANDOM, SessionIds.nodeTag(C), SEAL);
      assertEquals(
          new SessionRoutes.To(B),
          routes(B, true, List.of(A, B), joining, UP_B).of(ofC, record(ofC, C), 1, null),
          "a gone node's session is adopted by an up one");
    }
  }

  @Test
  void aGoneNodesSessionIsLookedUpAndSoIsOneThisNodeNoLongerServes() {
    String ofA = SessionIds.generate(RANDOM, SessionIds.nodeTag(A), SEAL);
    assertEquals(
        SessionRoutes.FIND, routes(B, true, List.of(B, C), UP_B, UP_C).of(ofA, null, 0, null));
    assertEquals(
        SessionRoutes.FIND,
        routes(B, true, List.of(A, B), member(A, "leaving", true), UP_B).of(ofA, null, 0, null));
    String ofB = SessionIds.generate(RANDOM, SessionIds.nodeTag(B), SEAL);
    assertEquals(
        SessionRoutes.FIND, routes(B, true, List.of(A, B), UP_A, UP_B).of(ofB, null, 0, null));
  }

  @Test
  void aRecordSendsItToTheNodeServingItOrElseToOneAdopterThatEveryNodeAgreesOn() {
    String id = SessionIds.generate(RANDOM, SessionIds.nodeTag(A), SEAL);
    assertEquals(
        new SessionRoutes.To(C),
        routes(B, true, List.of(B, C), UP_B, UP_C).of(id, record(id, C), 1, null),
        "served by C since it adopted the session");
    SessionRoutes.Route fromB =
        routes(B, true, List.of(B, C), UP_B, UP_C).of(id, record(id, A), 1, null);
    SessionRoutes.Route fromC =
        routes(C, true, List.of(B, C), UP_B, UP_C).of(id, record(id, A), 1, null);
    assertEquals(fromB, fromC);
    assertTrue(
        fromB instanceof SessionRoutes.To to && (to.address().equals(B) || to.address().equals(C)));
  }

  @Test
  void aStoppingNodeNeitherServesNorAdoptsAndTheLastOneLeavesNowhere() {
    for (int i = 0; i < 50; i++) {
      String id = SessionIds.generate(RANDOM, SessionIds.nodeTag(B), SEAL);
      assertEquals(
          new SessionRoutes.To(C),
          routes(B, false, List.of(B, C), UP_B, UP_C).of(id, record(id, B), 1, null));
    }
    String id = SessionIds.generate(RANDOM, SessionIds.nodeTag(B), SEAL);
    assertEquals(
        SessionRoutes.NOWHERE, routes(B, false, List.of(B), UP_B).of(id, record(id, B), 1, null));
  }

  @Test
  void aNodeWhoseDeskSaidItStopsIsPassedNothingThoughItIsStillAnUpMemberAndListed() {
    for (int i = 0; i < 50; i++) {
      String ofB = SessionIds.generate(RANDOM, SessionIds.nodeTag(B), SEAL);
      SessionRoutes fromC = routes(C, Set.of(B), List.of(A, B, C), UP_A, UP_B, UP_C);
      assertEquals(
          SessionRoutes.FIND, fromC.of(ofB, null, 0, null), "its id names a stopping node");
      SessionRoutes.Route served = fromC.of(ofB, record(ofB, B), 1, null);
      assertTrue(
          served.equals(new SessionRoutes.To(A)) || served.equals(new SessionRoutes.To(C)),
          "adopted by a node that stays, never sent back to B: " + served);
      assertEquals(
          served,
          routes(A, Set.of(B), List.of(A, B, C), UP_A, UP_B, UP_C).of(ofB, record(ofB, B), 1, null),
          "every staying node agrees on the adopter");
      assertEquals(
          served,
          routes(B, Set.of(B), List.of(A, B, C), UP_A, UP_B, UP_C).of(ofB, record(ofB, B), 1, null),
          "and so does B, which passes on what still reaches it");
    }
  }

  /**
   * A node that has not heard B stops still passes B requests; a lookup or a wait at B could
   * outlive B, and the request with it (a rolling redeploy's CI run lost three calls so).
   */
  @Test
  void aStoppingNodeHandsWhatItWouldLookUpOrWaitForToTheNodeThatWouldAdoptIt() {
    for (int i = 0; i < 50; i++) {
      String ofB = SessionIds.generate(RANDOM, SessionIds.nodeTag(B), SEAL);
      SessionRoutes fromB = routes(B, Set.of(B), List.of(A, B, C), UP_A, UP_B, UP_C);
      SessionRoutes.Route handed = fromB.of(ofB, null, 1, null);
      assertEquals(new SessionRoutes.HandOff(fromB.adopter(ofB)), handed, "its own session");
      assertTrue(
          handed.equals(new SessionRoutes.HandOff(A))
              || handed.equals(new SessionRoutes.HandOff(C)),
          "to a node that stays: " + handed);
      assertEquals(
          SessionRoutes.FIND,
          routes(B, true, List.of(A, B, C), UP_A, UP_B, UP_C).of(ofB, null, 1, null),
          "B looks it up itself while it serves");

      String ofA = SessionIds.generate(RANDOM, SessionIds.nodeTag(A), SEAL);
      MemberView unreachableA = member(A, "up", false);
      assertEquals(
          new SessionRoutes.HandOff(C),
          routes(B, Set.of(B), List.of(A, B, C), unreachableA, UP_B, UP_C).of(ofA, null, 1, null),
          "what it would wait for");
      assertEquals(
          new SessionRoutes.To(A),
          fromB.of(ofA, null, 1, null),
          "what it can pass on it passes on");
    }
    String ofB = SessionIds.generate(RANDOM, SessionIds.nodeTag(B), SEAL);
    assertEquals(
        SessionRoutes.FIND,
        routes(B, Set.of(B), List.of(B), UP_B).of(ofB, null, 1, null),
        "the last node has nobody to hand it to");
  }

  @Test
  void aRequestPassedOnByAStoppingNodeIsServedByTheNodeItReachesNotSentBack() {
    String id = SessionIds.generate(RANDOM, SessionIds.nodeTag(A), SEAL);
    SessionRoutes fromC = routes(C, Set.of(B), List.of(B, C), UP_B, UP_C);
    assertEquals(new SessionRoutes.To(C), fromC.of(id, record(id, B), 2, null));
    assertEquals(
        SessionRoutes.NOWHERE,
        routes(C, Set.of(B, C), List.of(B, C), UP_B, UP_C).of(id, record(id, B), 2, null),
        "both stop: nobody adopts");
  }

  @Test
  void passingOnEndsWithTheDeskThatHasItAfterTooManyHops() {
    String id = SessionIds.generate(RANDOM, SessionIds.nodeTag(A), SEAL);
    assertEquals(
        new SessionRoutes.To(B),
        routes(B, true, List.of(B, C), UP_B, UP_C)
            .of(id, record(id, C), SessionRoutes.MAX_HOPS, null));
  }

  @Test
  void losingANodeMovesOnlyTheSessionsItWasToAdopt() {
    SessionRoutes three = routes(A, true, List.of(A, B, C), UP_A, UP_B, UP_C);
    SessionRoutes two = routes(A, true, List.of(A, B), UP_A, UP_B);
    Map<String, Integer> adopted = new HashMap<>();
    for (int i = 0; i < 3000; i++) {
      String id = SessionIds.generate(RANDOM, "gone-node-x", SEAL);
      String before = three.adopter(id);
      adopted.merge(before, 1, Integer::sum);
      if (!before.equals(C)) {
        assertEquals(before, two.adopter(id), "a session C was not to adopt stays put");
      } else {
        assertNotEquals(C, two.adopter(id));
      }
    }
    adopted.values().forEach(count -> assertTrue(count > 800, "spread evenly: " + adopted));
  }

  @Test
  void aNodeRestartedOnItsAddressIsNotTheHomeOfItsPreviousIncarnationsSessions() {
    MemberView upAgain = member(A_AGAIN, "up", true);
    for (int i = 0; i < 50; i++) {
      String ofA = SessionIds.generate(RANDOM, SessionIds.nodeTag(A), SEAL);
      SessionRoutes fromAgain = routes(A_AGAIN, true, List.of(A_AGAIN, B, C), upAgain, UP_B, UP_C);
      assertEquals(
          SessionRoutes.FIND,
          fromAgain.of(ofA, null, 0, null),
          "its id names the previous incarnation");
      SessionRoutes fromB = routes(B, true, List.of(A_AGAIN, B, C), upAgain, UP_B, UP_C);
      assertEquals(SessionRoutes.FIND, fromB.of(ofA, null, 0, null));
      SessionRoutes.Route adopted = fromAgain.of(ofA, record(ofA, A), 1, null);
      assertEquals(
          adopted, fromB.of(ofA, record(ofA, A), 1, null), "every node agrees on the adopter");
      assertTrue(
          adopted instanceof SessionRoutes.To to && !to.address().equals(A),
          "adopted, not sent to the incarnation that held it: " + adopted);
    }
  }

  @Test
  void anAdoptedSessionGoesWhereItWasLastFoundWhileThatNodeServesAndOnlyFromTheFirstDesk() {
    String ofA = SessionIds.generate(RANDOM, SessionIds.nodeTag(A), SEAL);
    SessionRoutes fromB = routes(B, true, List.of(B, C), UP_B, UP_C);
    assertEquals(
        new SessionRoutes.To(C), fromB.of(ofA, null, 0, C), "its id names a gone node: no lookup");
    assertEquals(
        SessionRoutes.FIND,
        fromB.of(ofA, null, 1, C),
        "passed on already: the node that no longer holds it looks it up, so it never loops");
    assertEquals(SessionRoutes.FIND, fromB.of(ofA, null, 0, B), "found here once, not held now");
    assertEquals(
        SessionRoutes.FIND,
        routes(B, Set.of(C), List.of(B, C), UP_B, UP_C).of(ofA, null, 0, C),
        "the node it was found on stops");
    assertEquals(
        SessionRoutes.FIND,
        routes(B, true, List.of(B), UP_B).of(ofA, null, 0, C),
        "the node it was found on is gone");
    String ofC = SessionIds.generate(RANDOM, SessionIds.nodeTag(C), SEAL);
    assertEquals(
        new SessionRoutes.To(C),
        fromB.of(ofC, null, 0, A),
        "a session its id places goes there, whatever was found before");
  }

  @Test
  void anIdAndARecordThatNameAnAddressWithoutItsIncarnationAreAdopted() {
    // a session of a node of the release before, whose ids and records named addresses
    String address = "pekko://mcp@10.0.0.1:25520";
    String old = SessionIds.generate(RANDOM, SessionIds.nodeTag(address), SEAL);
    SessionRoutes fromB = routes(B, true, List.of(A, B, C), UP_A, UP_B, UP_C);
    assertEquals(SessionRoutes.FIND, fromB.of(old, null, 0, null));
    assertEquals(
        new SessionRoutes.To(fromB.adopter(old)), fromB.of(old, record(old, address), 1, null));
  }

  @Test
  void aListedDesksNodeIsTheMemberAtItsAddressThatServes() {
    List<MemberView> members =
        List.of(member(A, "exiting", true), member(A_AGAIN, "joining", true), UP_B);
    assertEquals(A_AGAIN, SessionRoutes.nodeAt("pekko://mcp@10.0.0.1:25520", members));
    assertEquals(B, SessionRoutes.nodeAt("pekko://mcp@10.0.0.2:25520", members));
    assertEquals(null, SessionRoutes.nodeAt("pekko://mcp@10.0.0.3:25520", members), "no member");
  }

  private static MemberView member(String node, String status, boolean reachable) {
    return new MemberView(node.substring(0, node.indexOf('#')), node, status, reachable);
  }

  private static SessionRoutes routes(
      String self, boolean selfServes, List<String> listed, MemberView... members) {
    return routes(self, selfServes ? Set.of() : Set.of(self), listed, members);
  }

  private static SessionRoutes routes(
      String self, Set<String> leaving, List<String> listed, MemberView... members) {
    Map<String, String> desks = new HashMap<>();
    listed.forEach(address -> desks.put(SessionIds.nodeTag(address), address));
    Map<String, MemberView> byAddress = SessionRoutes.membersOf(List.of(members));
    return new SessionRoutes(desks, byAddress, self, leaving);
  }

  private static SessionRecord record(String id, String home) {
    return new SessionRecord(id, "/mcp", Identity.ANONYMOUS, null, Map.of(), null, Map.of(), home);
  }
}
