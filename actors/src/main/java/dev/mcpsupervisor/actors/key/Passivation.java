package dev.mcpsupervisor.actors.key;

import java.util.OptionalLong;

/**
 * The passivation handshake of key actors under the {@link KeyRouter} (the gateway's downstream
 * sessions, which the HTTP routes tell directly from any thread, use a concurrent variant of it,
 * the http module's {@code RouteGate}): a child that holds nothing reports idle together with how
 * many of its router's messages it has processed; the router stops it only if it has sent it no
 * more than that, so that no message is ever lost to a stopping child. (Cluster Sharding's
 * passivation, where a shard buffers instead, solves the same race.)
 */
final class Passivation {

  private Passivation() {}

  /** The router's side, one per child: how many messages it sent that child. */
  static final class Outbox {
    private long sent;

    void sent() {
      sent++;
    }

    /**
     * The child reported idle after processing {@code processed} of them: true if none is on its
     * way.
     */
    boolean mayStop(long processed) {
      return processed == sent;
    }
  }

  /**
   * The child's side: how many of its router's messages it processed, and which count it reported
   * idle with.
   */
  static final class Inbox {
    private long processed;
    private long reportedAt = -1;

    void processed() {
      processed++;
    }

    /**
     * The count to report idle with now; empty when this very count was reported already (the
     * answer stands).
     */
    OptionalLong idleReport() {
      if (reportedAt == processed) {
        return OptionalLong.empty();
      }
      reportedAt = processed;
      return OptionalLong.of(processed);
    }
  }
}
