package dev.mcpsupervisor.actors.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

class InteractiveCallsTest {

  private static final List<Long> NO_SESSIONS = List.of();

  private final InteractiveCalls<String> calls = new InteractiveCalls<>(List.of("declared"));

  @Test
  void aToolIsInteractiveWhenDeclaredOrOnceMarkedAndOnlyForToolsCall() {
    assertTrue(calls.isInteractive(McpMethods.TOOLS_CALL, tool("declared")));
    assertFalse(calls.isInteractive(McpMethods.TOOLS_CALL, tool("sample")));
    assertTrue(calls.mark("sample"), "news the first time");
    assertFalse(calls.mark("sample"), "not the second");
    assertTrue(calls.isInteractive(McpMethods.TOOLS_CALL, tool("sample")));
    assertFalse(calls.isInteractive(McpMethods.PROMPTS_GET, tool("sample")));
    assertFalse(calls.isInteractive(McpMethods.TOOLS_CALL, JsonRpcCodec.emptyObject()));
  }

  @Test
  void withNothingDeclaredOrMarkedNoCallIsInteractive() {
    InteractiveCalls<String> none = new InteractiveCalls<>(List.of());
    assertFalse(none.isInteractive(McpMethods.TOOLS_CALL, tool("echo")));
  }

  @Test
  void theOwnerIsTheCallWithItsOwnDeliveryElseItsContext() {
    assertEquals("call 7", InteractiveCalls.owner(7, "ctx", true));
    assertEquals("context ctx", InteractiveCalls.owner(7, "ctx", false));
  }

  @Test
  void aSecondOwnerNeverSharesASessionWithTheFirstButTheSameOwnerMay() {
    calls.arrived(1, "a1", "a", 0);
    assertEquals(10L, calls.next(c -> null, List.of(10L, 11L), false, 0).sessionId());
    calls.arrived(2, "b1", "b", 0);
    assertEquals(11L, calls.next(c -> null, List.of(10L, 11L), false, 0).sessionId());
    calls.arrived(3, "a2", "a", 0);
    assertEquals(10L, calls.next(c -> null, List.of(10L, 11L), false, 0).sessionId());
    calls.arrived(4, "c1", "c", 0);
    assertNull(calls.next(c -> null, List.of(10L, 11L), false, 0), "c waits");
    assertEquals(1, calls.waiting());
  }

  @Test
  void aLeasedSessionIsTriedFirstWhenFree() {
    calls.arrived(1, "a1", "a", 0);
    assertEquals(11L, calls.next(c -> 11L, List.of(10L, 11L), false, 0).sessionId());
    calls.arrived(2, "b1", "b", 0);
    assertEquals(
        10L,
        calls.next(c -> 11L, List.of(10L, 11L), false, 0).sessionId(),
        "its lease's session runs another owner's interactive call: elsewhere");
  }

  @Test
  void withNoFreeSessionOneIsOpenedWhileThereMayBeMore() {
    calls.arrived(1, "a1", "a", 0);
    calls.next(c -> null, List.of(10L), false, 0);
    calls.arrived(2, "b1", "b", 5);
    InteractiveCalls.Placement<String> placement = calls.next(c -> null, List.of(10L), true, 9);
    assertTrue(placement.opensSession());
    assertEquals(4, placement.waitedNanos());
    assertNull(calls.sessionOf(2), "running once the actor says where");
    calls.running(2, "b", 11);
    assertEquals(11L, calls.sessionOf(2));
  }

  @Test
  void waitingCallsGoInOrderOfArrivalOnceASessionIsFree() {
    calls.arrived(1, "a1", "a", 0);
    calls.next(c -> null, List.of(10L), false, 0);
    calls.arrived(2, "b1", "b", 0);
    calls.arrived(3, "c1", "c", 0);
    assertNull(calls.next(c -> null, List.of(10L), false, 0));
    calls.ended(1);
    assertEquals("b1", calls.next(c -> null, List.of(10L), false, 0).call());
    assertNull(calls.next(c -> null, List.of(10L), false, 0), "c waits for b");
    calls.ended(2);
    assertEquals("c1", calls.next(c -> null, List.of(10L), false, 0).call());
  }

  @Test
  void aGoneSessionFreesItsCallsAndAWithdrawnCallNeverRuns() {
    calls.arrived(1, "a1", "a", 0);
    calls.next(c -> null, List.of(10L), false, 0);
    calls.arrived(2, "b1", "b", 0);
    calls.arrived(3, "c1", "c", 0);
    assertEquals("b1", calls.withdraw(2));
    assertNull(calls.withdraw(2), "once");
    calls.sessionGone(10);
    assertNull(calls.sessionOf(1));
    assertEquals("c1", calls.next(c -> null, List.of(11L), false, 0).call());
    assertEquals(List.of(), calls.drain());
  }

  @Test
  void endingAnUnknownCallChangesNothing() {
    calls.arrived(1, "a1", "a", 0);
    calls.next(c -> null, List.of(10L), false, 0);
    calls.ended(99);
    assertEquals(1, calls.runningOn(10));
    calls.ended(1);
    calls.ended(1);
    assertEquals(0, calls.runningOn(10));
  }

  /**
   * Many owners arrive, run and end in random order on a few sessions: no session ever runs two
   * owners' interactive calls, and every call runs once.
   */
  @Test
  void underRandomArrivalsAndEndsNoSessionEverHoldsTwoOwners() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    List<Long> sessions = new ArrayList<>();
    Map<Long, Long> runningOn = new HashMap<>();
    Map<Long, String> ownerOf = new HashMap<>();
    Set<Long> ran = new HashSet<>();
    long nextSession = 100;
    long nextCall = 1;
    for (int step = 0; step < 5_000; step++) {
      if (random.nextInt(3) > 0 || runningOn.isEmpty()) {
        long id = nextCall++;
        String owner = "owner-" + random.nextInt(12);
        ownerOf.put(id, owner);
        calls.arrived(id, "call-" + id, owner, step);
      } else {
        List<Long> running = new ArrayList<>(runningOn.keySet());
        long ended = running.get(random.nextInt(running.size()));
        runningOn.remove(ended);
        calls.ended(ended);
      }
      InteractiveCalls.Placement<String> placement;
      while ((placement = calls.next(c -> null, sessions, sessions.size() < 4, step)) != null) {
        long session = placement.sessionId();
        if (placement.opensSession()) {
          session = nextSession++;
          sessions.add(session);
          calls.running(placement.callId(), placement.owner(), session);
        }
        assertTrue(ran.add(placement.callId()), "runs once");
        runningOn.put(placement.callId(), session);
        long here = session;
        Set<String> owners = new HashSet<>();
        runningOn.forEach(
            (call, on) -> {
              if (on == here) {
                owners.add(ownerOf.get(call));
              }
            });
        assertEquals(1, owners.size(), "one owner on session " + here + ": " + owners);
      }
    }
    assertTrue(sessions.size() <= 4);
  }

  private static ObjectNode tool(String name) {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("name", name);
    return params;
  }
}
