package dev.mcpsupervisor.actors;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Server-to-client requests (sampling, elicitation, roots) handed to a context and waiting for its
 * answer. The context is shown a local id unique in the supervisor, so answers of different
 * sessions never mix.
 */
final class ServerRequests {

  /** One request: the id its context was shown, where it came from, and who was asked. */
  record Pending(
      String localId,
      JsonNode upstreamId,
      ActorRef<ContextDelivery.Command> delivery,
      String method,
      ActorRef<UpstreamLink.Command> link) {}

  private final String localIdPrefix;
  private final int capacity;
  private long nextLocalId = 1;
  private final Map<String, Pending> byLocalId = new HashMap<>();

  /**
   * @param capacity how many may wait at once: an upstream must not make the session grow without
   *     bound
   */
  ServerRequests(String keyId, long sessionId, int capacity) {
    this.localIdPrefix = keyId + ":" + sessionId + ":";
    this.capacity = capacity;
  }

  boolean isFull() {
    return byLocalId.size() >= capacity;
  }

  int size() {
    return byLocalId.size();
  }

  /**
   * @param link the link the request came on: its answer goes back on that one only
   */
  Pending add(
      JsonNode upstreamId,
      ActorRef<ContextDelivery.Command> delivery,
      String method,
      ActorRef<UpstreamLink.Command> link) {
    Pending pending =
        new Pending(localIdPrefix + nextLocalId++, upstreamId, delivery, method, link);
    byLocalId.put(pending.localId(), pending);
    return pending;
  }

  Pending remove(String localId) {
    return byLocalId.remove(localId);
  }

  /** Removes the request the upstream knows by this id; null if there is none. */
  Pending removeByUpstreamId(JsonNode upstreamId) {
    Iterator<Pending> pending = byLocalId.values().iterator();
    while (pending.hasNext()) {
      Pending request = pending.next();
      if (request.upstreamId().equals(upstreamId)) {
        pending.remove();
        return request;
      }
    }
    return null;
  }

  Set<String> localIds() {
    return byLocalId.keySet();
  }

  void clear() {
    byLocalId.clear();
  }
}
