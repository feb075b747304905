package dev.mcpsupervisor.http.ops;

/**
 * Whether the gateway takes new requests: ready once bound, no longer from the moment a stop begins
 * (before anything is unbound, so a draining gateway answers 503 rather than taking a request it
 * would then cut off). A flag, so the readiness probe and every request read it without asking an
 * actor.
 */
public final class Readiness {

  private volatile boolean ready;

  public void ready() {
    ready = true;
  }

  public void stopping() {
    ready = false;
  }

  public boolean isReady() {
    return ready;
  }
}
