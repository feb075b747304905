package dev.mcpsupervisor.actors.session;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.actors.telemetry.McpSpan;

/** A caller's request a session holds, from arrival to its one answer. */
final class TrackedCall {

  enum State {
    WAITING,
    IN_FLIGHT,
    RETRY_SCHEDULED
  }

  final UpstreamCall call;

  /** The params as sent upstream (the progress token rewritten). */
  final JsonNode params;

  /** The caller's own progress token, or null. */
  final JsonNode callerProgressToken;

  /** The token the upstream sees instead, or null. */
  final String upstreamProgressToken;

  final long startNanos = System.nanoTime();

  /** The call's CLIENT span (its context is in {@link #params}' {@code _meta}). */
  final McpSpan span;

  /** Placed here by the key actor as a call of an interactive tool: its end is reported. */
  boolean interactive;

  State state = State.WAITING;
  long upstreamId = -1;
  private boolean retriedAfterLoss;
  private int stillInitializingRetries;

  TrackedCall(
      UpstreamCall call,
      McpSpan span,
      JsonNode params,
      JsonNode callerProgressToken,
      String upstreamProgressToken) {
    this.call = call;
    this.span = span;
    this.params = params;
    this.callerProgressToken = callerProgressToken;
    this.upstreamProgressToken = upstreamProgressToken;
  }

  UpstreamCall call() {
    return call;
  }

  long callId() {
    return call.callId();
  }

  String method() {
    return call.method();
  }

  /**
   * A call survives one lost session at most: true (and the call waits again) the first time, if it
   * is safe.
   */
  boolean retryAfterLoss(boolean safeToRetry) {
    if (!safeToRetry || retriedAfterLoss) {
      return false;
    }
    retriedAfterLoss = true;
    state = State.WAITING;
    upstreamId = -1;
    return true;
  }

  /**
   * Marks the call as waiting for a "still initializing" retry; answers how many retries came
   * before this one.
   */
  int scheduleStillInitializingRetry() {
    state = State.RETRY_SCHEDULED;
    upstreamId = -1;
    return stillInitializingRetries++;
  }
}
