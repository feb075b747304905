package dev.mcpsupervisor.actors.session;

import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where a session's messages for its contexts go: the contexts leased on the session with the
 * delivery of each that has a listener (the key actor tells), and who last sent the upstream a
 * notification. Decisions only, no mailbox: the session asks, then sends.
 *
 * @param <D> a context's delivery (the {@link ContextDelivery} actor; anything in tests)
 */
final class LeasedContexts<D> {

  /** A server-to-client request's destination, or why there is none. */
  record Target<D>(D delivery, String whyNone) {}

  /** Every leased context, in lease order; the delivery is null while it has no listener. */
  private final Map<String, D> deliveries = new LinkedHashMap<>();

  private String lastNotifier;

  /**
   * @param delivery null: the context has no listener (yet), but its lease counts when deciding
   *     whose a server request may be
   */
  void leased(String context, D delivery) {
    if (delivery != null) {
      deliveries.put(context, delivery);
    } else {
      deliveries.putIfAbsent(context, null);
    }
  }

  void unleased(String context) {
    deliveries.remove(context);
    if (context.equals(lastNotifier)) {
      lastNotifier = null;
    }
  }

  /** The context sent the upstream a notification (roots/list_changed). */
  void notifiedBy(String context) {
    lastNotifier = context;
  }

  /** The leased context that last sent the upstream a notification, or null. */
  String lastNotifier() {
    return lastNotifier;
  }

  /** The contexts leased on the session, with a listener or not. */
  Set<String> all() {
    return Collections.unmodifiableSet(deliveries.keySet());
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
   * Sampling, elicitation, roots for {@code context} (see {@link ServerRequestAttribution}): its
   * delivery, else the one its call came with, else why there is none.
   */
  Target<D> targetOf(String context, D cameWith) {
    D delivery = deliveryFor(context, cameWith);
    return new Target<>(
        delivery, delivery == null ? "context " + context + " has no listener" : null);
  }

  /**
   * list_changed, resources/updated, logging that names no call: every leased context with a
   * listener.
   */
  Iterable<D> everyListener() {
    List<D> listening = new ArrayList<>(deliveries.size());
    for (D delivery : deliveries.values()) {
      if (delivery != null) {
        listening.add(delivery);
      }
    }
    return listening;
  }
}
