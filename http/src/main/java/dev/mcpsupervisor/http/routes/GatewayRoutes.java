package dev.mcpsupervisor.http.routes;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INTERNAL_ERROR;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;

import dev.mcpsupervisor.http.access.AccessControl;
import dev.mcpsupervisor.http.access.Authentication;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.endpoint.InForce;
import dev.mcpsupervisor.http.stream.McpResponses;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.Allow;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.ExceptionHandler;
import org.apache.pekko.http.javadsl.server.MethodRejection;
import org.apache.pekko.http.javadsl.server.RejectionHandler;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole route tree, under the configuration in force: Host/Origin checks on everything, the
 * probes, the operations page's token form and the protected resource metadata, then authentication
 * for metrics, admin and MCP (which serve the caller's identity). Failures never leak: an exception
 * is logged (with the session, shortened) and answered 500 with a JSON-RPC {@code -32603 internal
 * error} body and no details; a wrong method or path gets a JSON-RPC error body too.
 */
public final class GatewayRoutes extends AllDirectives {

  private static final Logger log = LoggerFactory.getLogger(GatewayRoutes.class);

  private final InForce inForce;
  private final OpsRoutes ops;
  private final AdminRoutes admin;
  private final McpRoutes mcp;

  /** The tree built for the configuration in force, rebuilt when a reload swaps it. */
  private final AtomicReference<Built> built = new AtomicReference<>();

  private record Built(InForce.Served served, Route route) {}

  /**
   * @param inForce the Host, Origin and authentication rules in force: each request is checked by
   *     the ones in force when it arrives
   */
  public GatewayRoutes(InForce inForce, OpsRoutes ops, AdminRoutes admin, McpRoutes mcp) {
    this.inForce = inForce;
    this.ops = ops;
    this.admin = admin;
    this.mcp = mcp;
  }

  public Route route() {
    // built here once: the directives' inner routes are suppliers, run again for every request
    ExceptionHandler exceptions = exceptionHandler();
    RejectionHandler rejections = rejectionHandler();
    return handleExceptions(
        exceptions,
        () -> handleRejections(rejections, () -> extractRequestContext(ignored -> now())));
  }

  private Route now() {
    InForce.Served served = inForce.get();
    Built last = built.get();
    if (last != null && last.served() == served) {
      return last.route();
    }
    Built rebuilt = new Built(served, checked(served.accessControl(), served.authentication()));
    built.compareAndSet(last, rebuilt);
    return rebuilt.route();
  }

  /**
   * The tree under {@code access} and {@code authentication}, built once for them: what depends on
   * the request (its identity, the answers) is in the routes' own suppliers.
   */
  private Route checked(AccessControl access, Authentication authentication) {
    Route metrics = ops.metrics();
    Route checked =
        concat(
            ops.probes(),
            admin.tokenPage(),
            authentication.metadata(),
            authentication.authenticate(
                identity -> concat(metrics, admin.route(identity), mcp.route(identity))));
    return access.checkHostAndOrigin(() -> checked);
  }

  private ExceptionHandler exceptionHandler() {
    return ExceptionHandler.newBuilder()
        .matchAny(
            failure ->
                extractRequest(
                    request -> {
                      String session =
                          request
                              .getHeader(McpResponses.SESSION_ID_HEADER)
                              .map(header -> SessionIds.redact(header.value()))
                              .orElse("-");
                      log.error(
                          "{} {} (session {}) failed",
                          request.method().name(),
                          request.getUri().path(),
                          session,
                          failure);
                      return complete(
                          McpResponses.error(
                              StatusCodes.INTERNAL_SERVER_ERROR, INTERNAL_ERROR, "internal error"));
                    }))
        .build();
  }

  private RejectionHandler rejectionHandler() {
    return RejectionHandler.newBuilder()
        .handleAll(
            MethodRejection.class,
            rejections ->
                complete(
                    McpResponses.error(
                            StatusCodes.METHOD_NOT_ALLOWED,
                            INVALID_REQUEST,
                            "Method Not Allowed: use "
                                + rejections.stream()
                                    .map(rejection -> rejection.supported().name())
                                    .collect(Collectors.joining(", ")))
                        .addHeader(
                            Allow.create(
                                rejections.stream()
                                    .map(MethodRejection::supported)
                                    .toArray(
                                        org.apache.pekko.http.javadsl.model.HttpMethod[]::new)))))
        .handleNotFound(
            complete(McpResponses.error(StatusCodes.NOT_FOUND, INVALID_REQUEST, "Not Found")))
        .build()
        .withFallback(RejectionHandler.defaultHandler());
  }
}
