package dev.mcpsupervisor.http.ops;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;

/**
 * Whether the gateway takes new requests: ready once bound, no longer from the moment a stop begins
 * (before anything is unbound, so a draining gateway answers 503 rather than taking a request it
 * would then cut off). A flag, so the readiness probe and every request read it without asking an
 * actor. The probe also asks whether this node is {@code Up} in its cluster (a single node always
 * is): a node still joining is not ready for a load balancer; and whether the application's warm-up
 * after the bind is done: a warming gateway serves every request, but a load balancer should send
 * its traffic elsewhere while there is an elsewhere.
 */
public final class Readiness {

  /** What {@code /readyz} says. */
  public enum Probe {
    READY,
    /** Bound and serving, but still warming up. */
    WARMING,
    /** Bound, but not {@code Up} in the cluster yet. */
    JOINING,
    /** Not bound yet, or stopping. */
    STOPPING
  }

  private final BooleanSupplier memberUp;
  private final CompletionStage<?> warmedUp;

  private volatile boolean ready;

  /** A single node's, without a warm-up: ready once bound. */
  public Readiness() {
    this(() -> true, CompletableFuture.completedFuture(null));
  }

  /**
   * @param memberUp whether this node is {@code Up} in its cluster; read at each probe
   * @param warmedUp completes (either way) when the warm-up is over
   */
  public Readiness(BooleanSupplier memberUp, CompletionStage<?> warmedUp) {
    this.memberUp = memberUp;
    this.warmedUp = warmedUp;
  }

  public void ready() {
    ready = true;
  }

  public void stopping() {
    ready = false;
  }

  /** Whether requests are taken: bound and not stopping (a joining node serves what it can). */
  public boolean isReady() {
    return ready;
  }

  public Probe probe() {
    if (!ready) {
      return Probe.STOPPING;
    }
    if (!warmedUp.toCompletableFuture().isDone()) {
      return Probe.WARMING;
    }
    return memberUp.getAsBoolean() ? Probe.READY : Probe.JOINING;
  }
}
