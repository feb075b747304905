package dev.mcpsupervisor.http.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.http.access.Identity;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The registry's bookkeeping; probes stand in for session actors and waiters. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SessionTableTest {

  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  private RoutedSession session(String id, Identity owner) {
    TestProbe<DownstreamSession.Command> ref = testKit.createTestProbe();
    return new RoutedSession(id, "/mcp", owner, ref.getRef(), new RouteGate());
  }

  /** A table with sessions "a" and "b". */
  private SessionTable twoSessions() {
    SessionTable table = new SessionTable(new SessionDirectory());
    table.started(session("a", Identity.ANONYMOUS));
    table.started(session("b", Identity.ANONYMOUS));
    return table;
  }

  @Test
  void reachesASessionOnlyOnItsPathFromItsOwnerWhileRoutable() {
    SessionTable table = new SessionTable(new SessionDirectory());
    RoutedSession alice = session("a", Identity.ofToken("alice"));
    table.started(alice);
    assertSame(alice, table.reachable("a", "/mcp", Identity.ofToken("alice")));
    assertNull(table.reachable("a", "/mcp", Identity.ofToken("bob")));
    assertNull(table.reachable("a", "/servers/x/mcp", Identity.ofToken("alice")));
    assertNull(table.reachable("unknown", "/mcp", Identity.ofToken("alice")));
    assertTrue(table.unroute("a"));
    assertFalse(table.unroute("a"));
    assertNull(table.reachable("a", "/mcp", Identity.ofToken("alice")));
    assertEquals(0, table.routableCount());
  }

  @Test
  void drainTellsEachSessionOnceAndRepliesWhenNoneIsLeftDraining() {
    SessionTable table = twoSessions();
    TestProbe<Done> first = testKit.createTestProbe();
    TestProbe<Done> second = testKit.createTestProbe();
    assertEquals(2, table.drain(first.getRef()).size());
    assertEquals(List.of(), table.drain(second.getRef()));
    assertFalse(table.accepting());
    assertFalse(table.listing().accepting());
    table.replyIfDrained();
    table.drained("a");
    first.expectNoMessage(Duration.ofMillis(50));
    table.drained("b");
    first.expectMessage(Done.getInstance());
    second.expectMessage(Done.getInstance());
  }

  @Test
  void endAllRepliesOnceEverySessionStoppedAndTheRestIsReleased() {
    SessionTable table = twoSessions();
    TestProbe<Done> waiter = testKit.createTestProbe();
    table.endAll(waiter.getRef());
    assertTrue(table.unroute("a")); // told to end: still alive until it stops
    table.stopped("a");
    table.stopped("b"); // stopped while routable: it ended itself, or failed
    assertNull(table.routable("b"));
    table.replyIfAllEnded(false);
    waiter.expectNoMessage(Duration.ofMillis(50));
    table.replyIfAllEnded(true);
    waiter.expectMessage(Done.getInstance());
    assertEquals(0, table.listing().sessions().size());
  }
}
