package dev.mcpsupervisor.http.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.http.access.Identity;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WaitingRequestsTest {

  private static final long NOW = 1_000_000_000L;

  @Test
  void aRequestNoLongerHeldBackGoesEvenPastItsDeadline() {
    NodeDesk.Command early = delete("s1");
    NodeDesk.Command late = delete("s2");
    WaitingRequests waiting =
        WaitingRequests.NONE
            .plus(early, Duration.ofSeconds(1), NOW)
            .plus(late, Duration.ofSeconds(1), NOW + 1);

    WaitingRequests.Sorted sorted =
        waiting.sort(NOW + Duration.ofSeconds(5).toNanos(), request -> false);

    assertEquals(List.of(early, late), sorted.ready(), "in the order they began to wait");
    assertTrue(sorted.expired().isEmpty());
    assertTrue(sorted.waiting().isEmpty());
  }

  @Test
  void aRequestStillHeldBackWaitsUntilItsOwnDeadlineThenWaitsNoMore() {
    NodeDesk.Command patient = delete("s1");
    NodeDesk.Command hurried = delete("s2");
    NodeDesk.Command free = delete("s3");
    WaitingRequests waiting =
        WaitingRequests.NONE
            .plus(patient, WaitingRequests.UNREACHABLE_NODE, NOW)
            .plus(hurried, WaitingRequests.UNKNOWN_NODE, NOW)
            .plus(free, WaitingRequests.UNKNOWN_NODE, NOW);
    Set<NodeDesk.Command> heldBack = Set.of(patient, hurried);

    WaitingRequests.Sorted before =
        waiting.sort(NOW + WaitingRequests.UNKNOWN_NODE.toNanos() - 1, heldBack::contains);
    assertEquals(List.of(free), before.ready());
    assertTrue(before.expired().isEmpty(), "no deadline has passed yet");
    assertEquals(List.of(patient, hurried), requestsOf(before.waiting()));

    WaitingRequests.Sorted at =
        before.waiting().sort(NOW + WaitingRequests.UNKNOWN_NODE.toNanos(), heldBack::contains);
    assertEquals(List.of(hurried), at.expired(), "its deadline is now");
    assertEquals(List.of(patient), requestsOf(at.waiting()));
  }

  @Test
  void withoutKeepsTheOthersInOrder() {
    NodeDesk.Command a = delete("a");
    NodeDesk.Command b = delete("b");
    NodeDesk.Command c = delete("c");
    assertEquals(List.of(a, c), requestsOf(waitingASecond(a, b, c).without(b::equals)));
  }

  /** {@code requests}, each waiting a second from {@link #NOW}. */
  private static WaitingRequests waitingASecond(NodeDesk.Command... requests) {
    WaitingRequests waiting = WaitingRequests.NONE;
    for (NodeDesk.Command request : requests) {
      waiting = waiting.plus(request, Duration.ofSeconds(1), NOW);
    }
    return waiting;
  }

  private static List<NodeDesk.Command> requestsOf(WaitingRequests waiting) {
    return waiting.entries().stream().map(WaitingRequests.Waiting::request).toList();
  }

  private static NodeDesk.Command delete(String sessionId) {
    return new NodeDesk.SessionDelete(sessionId, "/mcp", Identity.ANONYMOUS, null, null, 0);
  }
}
