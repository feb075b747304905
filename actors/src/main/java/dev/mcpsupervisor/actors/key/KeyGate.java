package dev.mcpsupervisor.actors.key;

import dev.mcpsupervisor.actors.base.MailboxGate;
import java.util.OptionalLong;

/**
 * The gate of one key actor: the {@link KeyRouter} counts its messages through it, and so do the
 * callers that send a leased call straight to the key actor that holds their lease ({@link
 * LeaseDirectory}). The key actor reports idle with its count; the router stops it only if it can
 * close the gate at that count ({@link #closeAt}), so neither the router's messages nor a caller's
 * are lost to a stopping key actor. A key actor that shuts down closes it itself and stops once
 * drained.
 */
final class KeyGate extends MailboxGate {

  private long reportedAt = -1;

  /**
   * The count to report idle with now; empty when this very count was reported already (the
   * router's answer stands).
   */
  OptionalLong idleReport() {
    long processed = processedCount();
    if (reportedAt == processed) {
      return OptionalLong.empty();
    }
    reportedAt = processed;
    return OptionalLong.of(processed);
  }
}
