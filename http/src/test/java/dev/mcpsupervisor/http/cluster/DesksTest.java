package dev.mcpsupervisor.http.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.mcpsupervisor.actors.cluster.Membership.MemberView;
import java.util.List;
import org.junit.jupiter.api.Test;

class DesksTest {

  private static final String ADDRESS = "pekko://mcp@10.0.0.1:25520";
  private static final String A = ADDRESS + "#-4211";

  /** A restarted on its address. */
  private static final String A_AGAIN = ADDRESS + "#5150";

  private static final String B = "pekko://mcp@10.0.0.2:25520#7302";

  @Test
  void aListedDeskIsTheNodeItsNameNamesWhileThatNodeIsAMember() {
    List<MemberView> restarted =
        List.of(member(A, "removed"), member(A_AGAIN, "up"), member(B, "up"));
    assertEquals(A_AGAIN, Desks.nodeOf(ADDRESS, Desks.deskName(1, A_AGAIN), restarted));
    assertNull(
        Desks.nodeOf(ADDRESS, Desks.deskName(1, A), List.of(member(A_AGAIN, "up"))),
        "the desk of the incarnation before, still listed, is not the new one's");
    assertNull(
        Desks.nodeOf(ADDRESS, Desks.deskName(1, A_AGAIN), List.of(member(A, "exiting"))),
        "the desk of an incarnation not seen yet counts once its member is");
  }

  @Test
  void aDeskOfTheReleaseBeforeIsTheMemberAtItsAddressThatServes() {
    List<MemberView> members = List.of(member(A, "exiting"), member(A_AGAIN, "joining"));
    assertEquals(A_AGAIN, Desks.nodeOf(ADDRESS, "mcp-gateway-desk-1", members));
  }

  private static MemberView member(String node, String status) {
    return new MemberView(node.substring(0, node.indexOf('#')), node, status, true);
  }
}
