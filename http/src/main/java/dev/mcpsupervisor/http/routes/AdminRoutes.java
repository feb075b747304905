package dev.mcpsupervisor.http.routes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.Asks;
import dev.mcpsupervisor.http.access.AccessControl;
import dev.mcpsupervisor.http.access.Authentication;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.access.StreamQuota;
import dev.mcpsupervisor.http.cluster.AdminDesk;
import dev.mcpsupervisor.http.ops.AdminPage;
import dev.mcpsupervisor.http.ops.ConfigReloader;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.http.ops.OpsJournal;
import dev.mcpsupervisor.http.stream.McpResponses;
import dev.mcpsupervisor.http.stream.SseFrames;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.upstream.Failures;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.CacheControl;
import org.apache.pekko.http.javadsl.model.headers.CacheDirectives;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;
import org.apache.pekko.stream.KillSwitches;
import org.apache.pekko.stream.SharedKillSwitch;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * The {@code /admin} endpoints: the operations page {@code /admin} ({@link AdminPage}), its live
 * feed {@code /admin/events}, the report {@code /admin/sessions} (JSON, {@link
 * dev.mcpsupervisor.http.session.AdminReport}), and the page's two actions: restart an upstream
 * session, close a downstream session (audited in the log and the {@link OpsJournal}). In a cluster
 * the report is every member's, and an action names its member ({@code ?node=}) and is carried out
 * there, both through the {@link AdminDesk}. Behind the bearer token when tokens are configured,
 * for loopback clients only when none are. HTTP only.
 */
public final class AdminRoutes extends AllDirectives {

  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(5);

  /** How often an event stream sends the page's sections. */
  static final Duration VIEW_INTERVAL = Duration.ofSeconds(1);

  /** Event streams at once, whoever holds them (loopback callers are not counted by the quota). */
  static final int MAX_EVENT_STREAMS = 64;

  private final AdminActions actions;
  private final ActorRef<AdminDesk.Command> desk;
  private final String self;
  private final Scheduler scheduler;
  private final OpsJournal journal;
  private final StreamQuota streamQuota;
  private final Supplier<Authentication> authentication;
  private final ConfigReloader reloader;
  private final SharedKillSwitch stopped = KillSwitches.shared("admin-event-streams");

  /**
   * @param desk this node's admin desk in a cluster (every member is shown, and acted on there), or
   *     null
   * @param self this node's address in a cluster
   * @param streamQuota the streams a caller may hold open, shared with the MCP routes
   * @param authentication whether callers authenticate (else the admin endpoints are
   *     loopback-only), and how a refusal says so: the one in force
   */
  public AdminRoutes(
      AdminActions actions,
      ActorRef<AdminDesk.Command> desk,
      String self,
      GatewayMetrics metrics,
      Scheduler scheduler,
      StreamQuota streamQuota,
      Supplier<Authentication> authentication,
      ConfigReloader reloader) {
    this.actions = actions;
    this.desk = desk;
    this.self = self;
    this.scheduler = scheduler;
    this.journal = metrics.journal();
    this.streamQuota = streamQuota;
    this.authentication = authentication;
    this.reloader = reloader;
  }

  /**
   * The operations page of a gateway that wants a token, asked for without one: 401, with the page
   * that asks for the token (it shows nothing before the token is given).
   */
  Route tokenPage() {
    if (!authentication.get().required()) {
      return reject();
    }
    return pathPrefix(
        "admin",
        () ->
            pathEndOrSingleSlash(
                () ->
                    get(
                        () ->
                            extractRequest(
                                request ->
                                    request.getHeader("Authorization").isPresent()
                                        ? reject()
                                        : complete(
                                            authentication
                                                .get()
                                                .challenged(
                                                    page(
                                                        StatusCodes.UNAUTHORIZED,
                                                        AdminPage.render(
                                                            null, List.of(), Instant.now()))))))));
  }

  /** Everything under {@code /admin}, for {@code caller}. */
  Route route(Identity caller) {
    return pathPrefix("admin", () -> loopbackUnlessTokens(() -> admin(caller)));
  }

  private Route admin(Identity caller) {
    return concat(
        pathEndOrSingleSlash(
            () ->
                get(
                    () ->
                        completeWithFuture(
                            report()
                                .thenApply(
                                    report ->
                                        page(
                                            StatusCodes.OK,
                                            AdminPage.render(
                                                report, journal.entries(), Instant.now())))
                                .exceptionally(this::unavailable)))),
        path(
            "sessions",
            () ->
                get(
                    () ->
                        completeWithFuture(
                            report()
                                .thenApply(report -> McpResponses.json(StatusCodes.OK, report))
                                .exceptionally(this::unavailable)))),
        path("events", () -> get(() -> events(caller))),
        path("reload", () -> post(() -> action(caller, reason -> reload(caller, reason)))),
        path(
            PathMatchers.segment("servers")
                .slash(PathMatchers.segment())
                .slash("sessions")
                .slash(PathMatchers.longSegment())
                .slash("restart"),
            (keyId, sessionId) -> post(() -> restart(caller, keyId, sessionId))),
        path(
            PathMatchers.segment("sessions").slash(PathMatchers.segment()).slash("close"),
            shownId -> post(() -> close(caller, shownId))));
  }

  /** Without tokens, the admin endpoints answer this machine only. */
  private Route loopbackUnlessTokens(Supplier<Route> inner) {
    if (authentication.get().required()) {
      return inner.get();
    }
    return extractRequest(
        request ->
            AccessControl.fromLoopback(request)
                ? inner.get()
                : complete(
                    McpResponses.json(
                        StatusCodes.FORBIDDEN,
                        message(
                            "forbidden",
                            "the admin endpoints answer loopback clients only while no token is"
                                + " configured (gateway.authTokens or gateway.oauth)"))));
  }

  // ------------------------------------------------------------------------------------- the page

  private static HttpResponse page(StatusCode status, String html) {
    return HttpResponse.create()
        .withStatus(status)
        .addHeader(RawHeader.create("Content-Security-Policy", AdminPage.contentSecurityPolicy()))
        .addHeader(RawHeader.create("X-Content-Type-Options", "nosniff"))
        .addHeader(RawHeader.create("Referrer-Policy", "no-referrer"))
        .addHeader(CacheControl.create(CacheDirectives.NO_STORE))
        .withEntity(HttpEntities.create(ContentTypes.TEXT_HTML_UTF8, html));
  }

  /**
   * {@code GET /admin/events}: SSE. {@code supervision} events (id = the journal's number; a
   * reconnect with {@code Last-Event-ID} gets what it missed that the journal still holds), and
   * every {@link #VIEW_INTERVAL} a {@code view} event with the page's sections. Counted like the
   * gateway's other streams; ended when the gateway stops.
   */
  private Route events(Identity caller) {
    return extractRequest(
        request -> {
          if (journal.followers() >= MAX_EVENT_STREAMS) {
            return complete(streamQuota.refusal());
          }
          Optional<Runnable> permit = streamQuota.acquire(caller, request);
          if (permit.isEmpty()) {
            return complete(streamQuota.refusal());
          }
          long after =
              request.getHeader("Last-Event-ID").map(header -> parseSeq(header.value())).orElse(0L);
          Source<ByteString, NotUsed> supervision =
              journal
                  .follow(after)
                  .map(
                      entry ->
                          SseFrames.named(
                              "supervision", entryJson(entry), Long.toString(entry.seq())));
          Source<ByteString, NotUsed> views =
              Source.tick(Duration.ZERO, VIEW_INTERVAL, "view")
                  .mapMaterializedValue(cancellable -> NotUsed.getInstance())
                  .mapAsync(
                      1,
                      tick ->
                          report()
                              .thenApply(
                                  report ->
                                      SseFrames.named(
                                          "view",
                                          AdminPage.fragments(report)
                                              .put("at", Instant.now().toString())))
                              // a tick without the supervisor's answer is skipped
                              .exceptionally(failure -> null));
          Source<ByteString, NotUsed> frames =
              supervision
                  .merge(views, true)
                  .via(stopped.flow())
                  .watchTermination(
                      (notUsed, done) -> {
                        done.whenComplete((ok, failure) -> permit.get().run());
                        return NotUsed.getInstance();
                      });
          return complete(McpResponses.eventStream(frames, VIEW_INTERVAL.multipliedBy(15)));
        });
  }

  private static ObjectNode entryJson(OpsJournal.Entry entry) {
    return JsonRpcCodec.emptyObject()
        .put("seq", entry.seq())
        .put("at", entry.at().toString())
        .put("kind", entry.kind())
        .put("server", entry.server())
        .put("key", entry.keyId())
        .put("session", entry.session())
        .put("detail", entry.detail())
        .put("html", AdminPage.event(entry));
  }

  private static long parseSeq(String value) {
    try {
      return Math.max(0, Long.parseLong(value.trim()));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  // ---------------------------------------------------------------------------------- the actions

  /**
   * An action: a POST with a JSON body (so that a plain cross-site form cannot send it), its
   * optional {@code reason} passed on.
   */
  private Route action(
      Identity caller, java.util.function.Function<String, CompletionStage<HttpResponse>> perform) {
    return extractRequest(
        request -> {
          if (!request.entity().getContentType().mediaType().equals(MediaTypes.APPLICATION_JSON)) {
            return complete(
                McpResponses.json(
                    StatusCodes.UNSUPPORTED_MEDIA_TYPE,
                    message("unsupported", "an action is a POST with a JSON body")));
          }
          return entity(
              Unmarshaller.entityToString(),
              body -> {
                String reason = reasonOf(body);
                if (reason == null) {
                  return complete(
                      McpResponses.json(
                          StatusCodes.BAD_REQUEST,
                          message("bad request", "the body is not a JSON object")));
                }
                return completeWithFuture(perform.apply(reason));
              });
        });
  }

  private Route restart(Identity caller, String keyId, long sessionId) {
    return nodeParameter(
        node ->
            action(
                caller,
                reason ->
                    carryOut(
                        replyTo ->
                            new AdminDesk.Restart(
                                node, keyId, sessionId, audit(caller, reason), replyTo))));
  }

  private Route close(Identity caller, String shownId) {
    return nodeParameter(
        node ->
            action(
                caller,
                reason ->
                    carryOut(
                        replyTo ->
                            new AdminDesk.Close(node, shownId, audit(caller, reason), replyTo))));
  }

  /** The member an action is for: {@code ?node=}, this node without one. */
  private Route nodeParameter(java.util.function.Function<String, Route> inner) {
    return parameterOptional("node", node -> inner.apply(node.orElse(self)));
  }

  /**
   * An operator's action: carried out on the member it names (this node's own through its desk too,
   * in a cluster), audited there.
   */
  private CompletionStage<HttpResponse> carryOut(
      java.util.function.Function<ActorRef<AdminDesk.Outcome>, AdminDesk.Action> action) {
    CompletionStage<AdminDesk.Outcome> outcome;
    if (desk != null) {
      // the desk bounds a member's answer; this bounds the desk's
      outcome =
          Asks.ask(desk, action::apply, AdminDesk.MEMBER_TIMEOUT.plus(ASK_TIMEOUT), scheduler);
    } else {
      // a single node acts here; no desk answers, so the action needs no reply
      AdminDesk.Action here = action.apply(null);
      outcome =
          here.node().equals(self)
              ? actions.act(here)
              : CompletableFuture.completedFuture(
                  AdminDesk.Outcome.of(
                      404, "unknown", "this gateway is no cluster: no node " + here.node()));
    }
    return outcome
        .thenApply(done -> McpResponses.json(StatusCodes.get(done.status()), done.body()))
        .exceptionally(this::unavailable);
  }

  /**
   * Re-reads the configuration file: 200 with what changed, 422 when the file does not load, 409
   * when it changes what needs a restart or there is no file; nothing changes unless 200.
   */
  private CompletionStage<HttpResponse> reload(Identity caller, String reason) {
    return reloader
        .reload(audit(caller, reason))
        .thenApply(
            outcome -> {
              ObjectNode json = message(outcome.status(), outcome.message());
              json.set("config", AdminActions.loadedJson(outcome.loaded()));
              StatusCode status =
                  switch (outcome.status()) {
                    case "reloaded" -> StatusCodes.OK;
                    case "invalid" -> StatusCodes.UNPROCESSABLE_ENTITY;
                    case "failed" -> StatusCodes.SERVICE_UNAVAILABLE;
                    default -> StatusCodes.CONFLICT;
                  };
              if (outcome.change() != null) {
                json.set("servers", JsonRpcCodec.mapper().valueToTree(outcome.change()));
              }
              return McpResponses.json(status, json);
            })
        .exceptionally(this::unavailable);
  }

  /** The body's {@code reason}, cut to 200 characters; "" without one; null: not a JSON object. */
  private static String reasonOf(String body) {
    try {
      JsonNode json = JsonRpcCodec.mapper().readTree(body.isBlank() ? "{}" : body);
      if (json == null || !json.isObject()) {
        return null;
      }
      String reason = json.path("reason").asText("");
      return reason.length() > 200 ? reason.substring(0, 200) : reason;
    } catch (IOException e) {
      return null;
    }
  }

  /** Who asked, and why if they said: for the log and the event list. */
  private static String audit(Identity caller, String reason) {
    return "by " + caller.name() + (reason.isBlank() ? "" : ": " + reason);
  }

  private static ObjectNode message(String status, String message) {
    return JsonRpcCodec.emptyObject().put("status", status).put("message", message);
  }

  /**
   * The {@code /admin/sessions} document as it is now: this node's, or in a cluster every member's
   * ({@link AdminDesk.Gather}).
   */
  private CompletionStage<ObjectNode> report() {
    if (desk == null) {
      return actions.report();
    }
    return Asks.<AdminDesk.Command, AdminDesk.Gathered>ask(
            desk, AdminDesk.Gather::new, AdminDesk.MEMBER_TIMEOUT.plus(ASK_TIMEOUT), scheduler)
        .thenCompose(
            gathered ->
                gathered.failure() == null
                    ? CompletableFuture.completedFuture(gathered.report())
                    : CompletableFuture.failedFuture(gathered.failure()));
  }

  /** A report without the supervisor's part would say "no sessions": say why not. */
  private HttpResponse unavailable(Throwable failure) {
    return McpResponses.json(
        StatusCodes.SERVICE_UNAVAILABLE,
        JsonRpcCodec.emptyObject()
            .put("status", "unavailable")
            .put("error", Failures.describe(failure)));
  }

  /** Ends the event streams: the gateway stops. */
  public void stop() {
    stopped.shutdown();
  }
}
