package dev.mcpsupervisor.http.ops;

import java.util.function.BooleanSupplier;

/**
 * Whether the gateway takes new requests: ready once bound, no longer from the moment a stop begins
 * (before anything is unbound, so a draining gateway answers 503 rather than taking a request it
 * would then cut off). A flag, so the readiness probe and every request read it without asking an
 * actor. The probe also asks whether this node is {@code Up} in its cluster (a single node always
 * is): a node still joining is not ready for a load balancer.
 */
public final class Readiness {

  /** What {@code /readyz} says. */
  public enum Probe {
    READY,
    /** Bound, but not {@code Up} in the cluster yet. */
    JOINING,
    /** Not bound yet, or stopping. */
    STOPPING
  }

  private final BooleanSupplier memberUp;

  private volatile boolean ready;

  /** A single node's: ready once bound. */
  public Readiness() {
    this(() -> true);
  }

  /**
   * @param memberUp whether this node is {@code Up} in its cluster; read at each probe
   */
  public Readiness(BooleanSupplier memberUp) {
    this.memberUp = memberUp;
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
    return memberUp.getAsBoolean() ? Probe.READY : Probe.JOINING;
  }
}
