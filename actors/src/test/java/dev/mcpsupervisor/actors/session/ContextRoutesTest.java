package dev.mcpsupervisor.actors.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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
  void aServerRequestForAContextGoesToItsDeliveryElseSaysWhyNot() {
    routes.leased("first", "d-first");
    assertEquals("d-first", routes.targetOf("first", null).delivery());
    assertEquals("came-with", routes.targetOf("gone", "came-with").delivery());
    ContextRoutes.Target<String> none = routes.targetOf("run", null);
    assertNull(none.delivery());
    assertEquals("context run has no listener", none.whyNone());
  }

  @Test
  void leasesWithoutAListenerCountButReceiveNothing() {
    routes.leased("silent", null);
    routes.leased("listening", "d-listening");
    routes.leased("listening", null); // a listener once known is kept
    assertEquals(Set.of("silent", "listening"), routes.leasedContexts());
    List<String> reached = new ArrayList<>();
    routes.everyListener().forEach(reached::add);
    assertEquals(List.of("d-listening"), reached);
    routes.unleased("silent");
    assertEquals(Set.of("listening"), routes.leasedContexts());
  }

  @Test
  void aNotifierThatLeftIsForgotten() {
    routes.leased("second", "d-second");
    routes.notifiedBy("second");
    assertEquals("second", routes.lastNotifier());
    routes.unleased("second");
    assertNull(routes.lastNotifier());
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
