package dev.mcpsupervisor.actors.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pooling and lease bookkeeping of one server key, without actors. */
class LeaseTableTest {

  private final LeaseTable<String, String> table = new LeaseTable<>();

  @Test
  void theLeastLeasedSessionThatIsNotFullServesANewLease() {
    LeaseTable.Entry<String> one = table.add(1, "one");
    LeaseTable.Entry<String> two = table.add(2, "two");
    table.lease("a", one);
    table.lease("b", one);
    table.lease("c", two);
    assertSame(two, table.pooled(4));
    table.saturated(2, true);
    assertSame(one, table.pooled(4), "a full session is passed over");
    table.saturated(2, false);
    assertSame(two, table.pooled(4), "and served again once it is not");
  }

  @Test
  void whenEverySessionIsFullAnotherIsOpenedUpToMaxSessionsThenTheLeastLeasedServesAnyway() {
    LeaseTable.Entry<String> one = table.add(1, "one");
    one.saturated = true;
    table.lease("a", one);
    assertNull(table.pooled(2), "all full and below maxSessions: open another");
    LeaseTable.Entry<String> two = table.add(2, "two");
    two.saturated = true;
    assertSame(two, table.pooled(2), "all full at maxSessions: the least leased");
  }

  @Test
  void aContextHoldsOneLeaseAndReleasingItTwiceIsHarmless() {
    LeaseTable.Entry<String> one = table.add(1, "one");
    table.lease("a", one);
    assertSame(one, table.sessionOf("a"));
    assertSame(one, table.release("a"));
    assertTrue(one.contexts.isEmpty());
    assertNull(table.release("a"));
    assertNull(table.sessionOf("a"));
  }

  @Test
  void anEvictedSessionLeavesTheTableWithItsLeasesBeforeItStops() {
    LeaseTable.Entry<String> one = table.add(1, "one");
    table.lease("a", one);
    table.lease("b", one);
    assertEquals(List.of("a", "b"), table.evict(one));
    assertNull(table.sessionOf("a"), "nothing assigned afterwards can reach it");
    assertNull(table.pooled(4));
    assertEquals(Map.of(), table.leases());
    assertEquals(1, table.closing().size());
    assertFalse(table.isEmpty(), "still closing");
    assertEquals(
        List.of(), table.stopped(1), "a closing session takes no lease along when it stops");
    assertTrue(table.isEmpty());
  }

  @Test
  void aSessionThatStopsUnexpectedlyTakesItsLeasesAlong() {
    LeaseTable.Entry<String> one = table.add(1, "one");
    table.lease("a", one);
    assertEquals(List.of("a"), table.stopped(1));
    assertNull(table.sessionOf("a"));
    assertTrue(table.isEmpty());
  }

  @Test
  void onlyWhenNoSessionIsStillStartingMayAProbeStart() {
    assertTrue(table.noneStarting());
    table.add(1, "probe");
    assertFalse(table.noneStarting());
    table.ready(1, true);
    assertTrue(table.noneStarting());
    table.ready(1, false); // its connection was lost
    assertFalse(table.noneStarting());
  }

  @Test
  void aListenerBelongsToItsLeaseAndEndsWithItWhetherReleasedEvictedOrStopped() {
    LeaseTable.Entry<String> one = table.add(1, "one");
    assertFalse(table.listen("a", "delivery-a"), "no lease, no listener");
    table.lease("a", one);
    table.lease("b", one);
    table.lease("c", one);
    assertTrue(table.listen("a", "delivery-a"));
    assertFalse(table.listen("a", "delivery-a"), "the same listener again changes nothing");
    assertTrue(table.listen("a", "delivery-a2"), "a new listener replaces the old one");
    assertTrue(table.listen("b", "delivery-b"));
    assertTrue(table.listen("c", "delivery-c"));
    table.release("a");
    assertNull(table.listenerOf("a"), "released");
    LeaseTable.Entry<String> two = table.add(2, "two");
    table.lease("d", two);
    table.listen("d", "delivery-d");
    table.evict(one);
    assertNull(table.listenerOf("b"), "evicted");
    assertNull(table.listenerOf("c"), "evicted");
    table.stopped(2);
    assertNull(table.listenerOf("d"), "stopped");
    table.stopped(1);
    assertTrue(table.isEmpty());
  }
}
