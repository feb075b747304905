package dev.mcpsupervisor.actors;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a session's messages for its contexts go: the delivery of each leased context that has a
 * listener (the key actor tells), and who last sent the upstream a notification. Decisions only, no
 * mailbox: the session asks, then sends.
 *
 * @param <D> a context's delivery (the {@link ContextDelivery} actor; anything in tests)
 */
final class ContextRoutes<D> {

  /** A server-to-client request's destination, or why there is none. */
  record Target<D>(D delivery, String whyNone) {}

  /** In lease order: with no call in flight, a server request goes to the first. */
  private final Map<String, D> deliveries = new LinkedHashMap<>();

  private String lastNotifier;

  void leased(String context, D delivery) {
    deliveries.put(context, delivery);
  }

  void unleased(String context) {
    deliveries.remove(context);
    if (context.equals(lastNotifier)) {
      lastNotifier = null;
    }
  }

  /**
   * The context sent the upstream a notification (roots/list_changed): a request with no call in
   * flight is for it.
   */
  void notifiedBy(String context) {
    lastNotifier = context;
  }

  /**
   * A call's notifications and answer: its context's delivery now, else the one the call came with
   * (may be null).
   */
  D deliveryFor(String context, D cameWith) {
    D current = deliveries.get(context);
    return current != null ? current : cameWith;
  }

  /**
   * Sampling, elicitation, roots: to the context of the call that owns the request ({@code
   * ownerContext}, else null); with none, to the context that last sent a notification here, else
   * to the first leased context with a listener.
   */
  Target<D> serverRequestTarget(String ownerContext, D ownerCameWith) {
    if (ownerContext != null) {
      D delivery = deliveryFor(ownerContext, ownerCameWith);
      return new Target<>(
          delivery, delivery == null ? "context " + ownerContext + " has no listener" : null);
    }
    D delivery = lastNotifier != null ? deliveries.get(lastNotifier) : null;
    if (delivery == null && !deliveries.isEmpty()) {
      delivery = deliveries.values().iterator().next();
    }
    return new Target<>(
        delivery,
        delivery == null ? "no request in flight and no leased context with a listener" : null);
  }

  /**
   * list_changed, resources/updated, logging that names no call: every leased context with a
   * listener.
   */
  Iterable<D> everyListener() {
    return deliveries.values();
  }
}
