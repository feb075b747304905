package dev.mcpsupervisor.http;

import java.net.InetAddress;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.RemoteAddress;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/**
 * The long-lived streams a caller may hold open at once (GET streams, subscriptions/listen): asked
 * before the stream is opened, so a refusal (429) never follows work done. A caller is who {@link
 * CallerIdentity} names (bearer token, agent id), else the client's address; a loopback client
 * without either is not counted: every agent on the machine shares that address.
 */
final class StreamQuota {

  private final StreamPermits permits;
  private final int maxPerIdentity;
  private final CallerIdentity callers;
  private final McpRefusals refusals;

  StreamQuota(int maxPerIdentity, CallerIdentity callers, McpRefusals refusals) {
    this.permits = new StreamPermits(maxPerIdentity);
    this.maxPerIdentity = maxPerIdentity;
    this.callers = callers;
    this.refusals = refusals;
  }

  /**
   * A permit for the caller of {@code request}, given back by running the answer (once, however
   * often it runs), or empty when the caller holds its cap already: then answer {@link #refusal}.
   */
  Optional<Runnable> acquire(HttpRequest request) {
    String owner = ownerOf(request);
    if (owner == null) {
      return Optional.of(() -> {});
    }
    if (!permits.tryAcquire(owner)) {
      return Optional.empty();
    }
    AtomicBoolean released = new AtomicBoolean();
    return Optional.of(
        () -> {
          if (released.compareAndSet(false, true)) {
            permits.release(owner);
          }
        });
  }

  HttpResponse refusal() {
    return refusals.refuse(
        StatusCodes.TOO_MANY_REQUESTS,
        "too_many_streams",
        "Too Many Requests: this caller has "
            + maxPerIdentity
            + " streams open already (close one first)");
  }

  /**
   * Whom a stream is counted against, or null for nobody: the one place that says so (identities
   * may change).
   */
  String ownerOf(HttpRequest request) {
    String caller = callers.contextOf(name -> McpRequestChecks.header(request, name));
    if (caller != null) {
      return caller;
    }
    Optional<InetAddress> address =
        request.getAttribute(AttributeKeys.remoteAddress).flatMap(RemoteAddress::getAddress);
    if (address.isPresent() && address.get().isLoopbackAddress()) {
      return null;
    }
    return "address:" + address.map(InetAddress::getHostAddress).orElse("unknown");
  }
}
