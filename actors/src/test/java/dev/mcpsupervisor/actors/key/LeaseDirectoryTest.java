package dev.mcpsupervisor.actors.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.protocol.McpMethods;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.junit.jupiter.api.Test;

/** The callers' side of the lease directory and the router's, without actors. */
class LeaseDirectoryTest {

  private final LeaseDirectory leases = new LeaseDirectory();
  private final TestInbox<ServerKeyActor.Command> key = TestInbox.create();

  @Test
  void aCallOnItsWayThroughTheRouterIsNotOvertakenByTheContextsNextCalls() {
    assertFalse(leases.send(call("ctx", 1)), "no entry yet: through the router");
    // the router routes call 1: it enters the lease, then counts the call off
    leases.enter("ctx", "alpha", entry());
    assertFalse(leases.send(call("ctx", 2)), "call 1 is still in the router: 2 goes after it");
    leases.routed("ctx");
    assertFalse(leases.send(call("ctx", 3)), "call 2 is still in the router");
    leases.routed("ctx");
    leases.routed("ctx");
    assertTrue(leases.send(call("ctx", 4)), "nothing on its way: straight to the key actor");
    assertEquals(
        4, assertInstanceOf(ServerKeyActor.Direct.class, key.receiveMessage()).call().callId());
    assertFalse(key.hasMessages());
  }

  @Test
  void anotherContextsCallsStillGoStraightToTheirKeyActor() {
    leases.enter("other", "alpha", entry());
    assertFalse(leases.send(call("ctx", 1)));
    assertTrue(leases.send(call("other", 2)), "only the context whose call is on its way waits");
    leases.routed("ctx");
    leases.enter("ctx", "alpha", entry());
    assertTrue(leases.send(call("ctx", 3)));
  }

  @Test
  void aHoldAndACallOnItsWayAreCountedOffApart() {
    leases.enter("ctx", "alpha", entry());
    leases.hold("ctx"); // a release on its way
    assertFalse(leases.send(call("ctx", 1)));
    leases.settled("ctx");
    leases.enter("ctx", "alpha", entry());
    assertFalse(leases.send(call("ctx", 2)), "the release is settled, call 1 is not routed yet");
    leases.routed("ctx");
    leases.routed("ctx");
    assertTrue(leases.send(call("ctx", 3)));
  }

  private LeaseDirectory.Entry entry() {
    return new LeaseDirectory.Entry(key.getRef(), new KeyGate(), null);
  }

  private static UpstreamCall call(String context, long callId) {
    return UpstreamCall.leased(
        context,
        "alpha",
        callId,
        McpMethods.TOOLS_CALL,
        null,
        Duration.ofSeconds(5),
        response -> {},
        null);
  }
}
