package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * Who decides the era when the server's is not known in advance: told by a {@link StatelessAdapter}
 * the outcome of the discover that serves the session's initialize.
 */
interface EraProbe {

  /** How long discover may take before the server counts as one of the session era. */
  Duration timeout();

  /** Discover named 2026-07-28: the adapter serves the session from now on. */
  void stateless();

  /**
   * Discover failed, timed out or named no 2026-07-28: the session era takes the initialize over.
   * The stage completes when it is sent.
   */
  CompletionStage<Void> notStateless(JsonRpcRequest initialize);
}
