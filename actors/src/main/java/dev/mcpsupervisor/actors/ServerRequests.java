package dev.mcpsupervisor.actors;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Server-to-client requests (sampling, elicitation, roots) handed to a context and waiting for its answer. The context
 * is shown a local id unique in the supervisor, so answers of different sessions never mix.
 */
final class ServerRequests {

  /** One request: the id its context was shown, where it came from, and who was asked. */
  record Pending(
      String localId,
      JsonNode upstreamId,
      ActorRef<ContextDelivery.Command> delivery,
      String method,
      long generation) {}

  private final String localIdPrefix;
  private long nextLocalId = 1;
  private final Map<String, Pending> byLocalId = new HashMap<>();

  ServerRequests(String keyId, long sessionId) {
    this.localIdPrefix = keyId + ":" + sessionId + ":";
  }

  Pending add(JsonNode upstreamId, ActorRef<ContextDelivery.Command> delivery, String method, long generation) {
    Pending pending = new Pending(localIdPrefix + nextLocalId++, upstreamId, delivery, method, generation);
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
