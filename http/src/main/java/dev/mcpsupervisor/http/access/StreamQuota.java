package dev.mcpsupervisor.http.access;

import java.net.InetAddress;
import java.util.Optional;
import java.util.function.IntSupplier;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/**
 * The long-lived streams a caller may hold open at once (GET streams, subscriptions/listen): asked
 * before the stream is opened, so a refusal (429) never follows work done. A caller is its
 * authenticated {@link Identity}, else (no authentication) the client's address; an anonymous
 * loopback client is not counted: every agent on the machine shares that address.
 */
public final class StreamQuota {

  private final CallerLimit permits;
  private final IntSupplier maxPerIdentity;
  private final McpRefusals refusals;

  /**
   * @param maxPerIdentity {@code gateway.maxStreamsPerIdentity} in force
   */
  public StreamQuota(IntSupplier maxPerIdentity, McpRefusals refusals) {
    this.permits = new CallerLimit(maxPerIdentity);
    this.maxPerIdentity = maxPerIdentity;
    this.refusals = refusals;
  }

  /**
   * A permit for {@code caller} of {@code request}, given back by running the answer (once, however
   * often it runs), or empty when the caller holds its cap already: then answer {@link #refusal}.
   */
  public Optional<Runnable> acquire(Identity caller, HttpRequest request) {
    String owner = ownerOf(caller, request);
    if (owner == null) {
      return Optional.of(() -> {});
    }
    return permits.acquire(owner);
  }

  public HttpResponse refusal() {
    return refusals.refuse(
        StatusCodes.TOO_MANY_REQUESTS,
        "too_many_streams",
        "Too Many Requests: this caller has "
            + maxPerIdentity.getAsInt()
            + " streams open already (close one first)");
  }

  /**
   * Whom a stream is counted against, or null for nobody: the one place that says so (identities
   * may change).
   */
  static String ownerOf(Identity caller, HttpRequest request) {
    if (!caller.isAnonymous()) {
      return caller.key();
    }
    if (AccessControl.fromLoopback(request)) {
      return null;
    }
    return "address:"
        + AccessControl.clientAddress(request).map(InetAddress::getHostAddress).orElse("unknown");
  }
}
