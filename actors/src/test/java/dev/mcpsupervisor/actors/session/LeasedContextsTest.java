package dev.mcpsupervisor.actors.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where a session's notifications and server requests go, without actors. */
class LeasedContextsTest {

  private final LeasedContexts<String> contexts = new LeasedContexts<>();

  @Test
  void aCallsMessagesGoToItsContextsDeliveryNowElseTheOneItCameWith() {
    assertEquals("came-with", contexts.deliveryFor("run", "came-with"));
    contexts.leased("run", "current");
    assertEquals("current", contexts.deliveryFor("run", "came-with"));
    contexts.unleased("run");
    assertEquals("came-with", contexts.deliveryFor("run", "came-with"));
  }

  @Test
  void aServerRequestForAContextGoesToItsDeliveryElseSaysWhyNot() {
    contexts.leased("first", "d-first");
    assertEquals("d-first", contexts.targetOf("first", null).delivery());
    assertEquals("came-with", contexts.targetOf("gone", "came-with").delivery());
    LeasedContexts.Target<String> none = contexts.targetOf("run", null);
    assertNull(none.delivery());
    assertEquals("context run has no listener", none.whyNone());
  }

  @Test
  void leasesWithoutAListenerCountButReceiveNothing() {
    contexts.leased("silent", null);
    contexts.leased("listening", "d-listening");
    contexts.leased("listening", null); // a listener once known is kept
    assertEquals(Set.of("silent", "listening"), contexts.all());
    List<String> reached = new ArrayList<>();
    contexts.everyListener().forEach(reached::add);
    assertEquals(List.of("d-listening"), reached);
    contexts.unleased("silent");
    assertEquals(Set.of("listening"), contexts.all());
  }

  @Test
  void aNotifierThatLeftIsForgotten() {
    contexts.leased("second", "d-second");
    contexts.notifiedBy("second");
    assertEquals("second", contexts.lastNotifier());
    contexts.unleased("second");
    assertNull(contexts.lastNotifier());
  }

  @Test
  void broadcastsReachEveryLeasedListenerInLeaseOrder() {
    contexts.leased("b", "d-b");
    contexts.leased("a", "d-a");
    List<String> reached = new ArrayList<>();
    contexts.everyListener().forEach(reached::add);
    assertEquals(List.of("d-b", "d-a"), reached);
  }
}
