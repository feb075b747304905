package dev.mcpsupervisor.actors.base;

import java.time.Instant;

/**
 * Something that happened in the supervision tree: an upstream session started, became ready, lost
 * its connection, came back, failed an attempt or was evicted, or a server key's circuit opened or
 * closed. What the operations page's event list and the lifecycle counters are made of. No secrets:
 * the detail is a reason as the logs give it.
 *
 * @param keyId the server key's id (name and short digest)
 * @param sessionId the upstream session, 0 for an event of the key (its circuit)
 * @param detail why, or empty; an eviction's is {@code <reason>: <explanation>}, the reason as
 *     metrics label it ({@link #cause})
 */
public record SupervisionEvent(
    Instant at, Kind kind, String server, String keyId, long sessionId, String detail) {

  public enum Kind {
    /** A session was opened: connect and initialize follow. */
    STARTED("started"),
    /** Its first connection is up. */
    READY("ready"),
    /** A ready session's connection died: it reconnects. */
    LOST("lost"),
    /** An operator restarted a ready session (who and why in the detail): it reconnects. */
    RESTART_REQUESTED("restart requested"),
    /** A lost session is connected again. */
    RESTARTED("restarted"),
    /** A connect or initialize attempt failed. */
    ATTEMPT_FAILED("attempt failed"),
    /** The session was closed for a reason of the key's: idle, failures, released, circuit open. */
    EVICTED("evicted"),
    CIRCUIT_OPEN("circuit open"),
    CIRCUIT_CLOSED("circuit closed");

    private final String word;

    Kind(String word) {
      this.word = word;
    }

    /** As the page and the logs say it. */
    public String word() {
      return word;
    }
  }

  /** The detail up to its first {@code ": "}: an eviction's reason ("idle", "failures", ...). */
  public String cause() {
    int colon = detail.indexOf(": ");
    return colon < 0 ? detail : detail.substring(0, colon);
  }

  public static SupervisionEvent now(
      Kind kind, String server, String keyId, long sessionId, String detail) {
    return new SupervisionEvent(
        Instant.now(), kind, server, keyId, sessionId, detail == null ? "" : detail);
  }
}
