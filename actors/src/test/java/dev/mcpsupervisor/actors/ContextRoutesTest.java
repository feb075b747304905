package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where a session's notifications and server requests go, without actors. */
class ContextRoutesTest {

  private final ContextRoutes<String> routes = new ContextRoutes<>();

  @Test
  void aCallsMessagesGoToItsContextsDeliveryNowElseTheOneItCameWith() {
    assertEquals("came-with", routes.deliveryFor("run", "came-with"));
    routes.leased("run", "current");
    assertEquals("current", routes.deliveryFor("run", "came-with"));
    routes.unleased("run");
    assertEquals("came-with", routes.deliveryFor("run", "came-with"));
  }

  @Test
  void aServerRequestGoesToTheOwnerOfTheCallElseTheLastNotifierElseTheFirstLeasedContext() {
    routes.leased("first", "d-first");
    routes.leased("second", "d-second");
    assertEquals("d-second", routes.serverRequestTarget("second", null).delivery());
    assertEquals(
        "d-first", routes.serverRequestTarget(null, null).delivery(), "no call: the first leased");
    routes.notifiedBy("second");
    assertEquals(
        "d-second", routes.serverRequestTarget(null, null).delivery(), "the last notifier");
    routes.unleased("second");
    assertEquals(
        "d-first",
        routes.serverRequestTarget(null, null).delivery(),
        "a notifier that left is forgotten");
  }

  @Test
  void withNobodyToAskTheTargetSaysWhy() {
    ContextRoutes.Target<String> none = routes.serverRequestTarget(null, null);
    assertNull(none.delivery());
    assertEquals("no request in flight and no leased context with a listener", none.whyNone());
    assertEquals("context run has no listener", routes.serverRequestTarget("run", null).whyNone());
  }

  @Test
  void broadcastsReachEveryLeasedListenerInLeaseOrder() {
    routes.leased("b", "d-b");
    routes.leased("a", "d-a");
    List<String> reached = new ArrayList<>();
    routes.everyListener().forEach(reached::add);
    assertEquals(List.of("d-b", "d-a"), reached);
  }
}
