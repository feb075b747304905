package dev.mcpsupervisor.http.stateless;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INTERNAL_ERROR;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.MISSING_CLIENT_CAPABILITY;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.call.CallOptions;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.actors.delivery.CallerKind;
import dev.mcpsupervisor.http.endpoint.McpEndpoint;
import dev.mcpsupervisor.http.endpoint.Outcome;
import dev.mcpsupervisor.http.endpoint.UpstreamCalls;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import dev.mcpsupervisor.http.request.ClientRequests;
import dev.mcpsupervisor.http.stream.ExchangeSink;
import dev.mcpsupervisor.protocol.LogLevels;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.RequestStates;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One 2026-07-28 request (anything but {@code subscriptions/listen}) from its arrival to its
 * answer: no session and no actor of its own. Its upstream calls go through the supervisor's round
 * bridge ({@link SessionSupervisor#call}, leaseless): progress and logs go on its exchange as they
 * come, and a call that needs its client's input parks the request — the exchange ends with an
 * {@code input_required} result whose {@code requestState} names it in {@link PendingRounds} —
 * until the client's retry brings the answers and a new exchange for what comes next. A round not
 * retried within {@code serverRequestTimeout} gives the request up (its calls cancelled upstream).
 *
 * <p>Thread-safe: its calls, the routes and its timer reach it from their own threads; every change
 * and every event told to an exchange happens under its lock, so events go out in order.
 */
public final class StatelessRequest implements UpstreamCalls.RoundTrips {

  private static final Logger log = LoggerFactory.getLogger(StatelessRequest.class);

  /** What every stateless request of a gateway shares. */
  public record Gateway(
      SessionSupervisor supervisor,
      GatewaySettings settings,
      Scheduler scheduler,
      ServerOffers offers,
      PendingRounds pending) {}

  /**
   * The request as it arrived.
   *
   * @param context its own supervisor context (leases it takes to learn what servers offer are
   *     released with its answer)
   * @param identity its caller's identity context for {@code isolation: context} servers, or null:
   *     the supervisor keeps it while its calls are in flight and for the idle timeout after (no
   *     request enters or leaves it)
   * @param principal who asks ({@link RequestStates#principalOf}), or null
   * @param paramHeaders its {@code Mcp-Param-*} headers by name, case-insensitive
   * @param actingAs whom its calls act as (its caller's identity name), when a server of its
   *     endpoint acts as its caller; else null
   * @param callerToken the bearer token its caller presented, when a server of its endpoint passes
   *     it upstream ({@code passCallerToken}); else null. Never logged.
   * @param cacheScope what its cacheable results say, by the configuration in force when it arrived
   *     ({@link dev.mcpsupervisor.http.endpoint.InForce.Served#cacheScope})
   */
  public record Arrival(
      JsonRpcRequest request,
      McpEndpoint endpoint,
      String context,
      String identity,
      String principal,
      Map<String, String> paramHeaders,
      String actingAs,
      String callerToken,
      String cacheScope) {

    @Override
    public String toString() { // never the token
      return "Arrival[" + request.method() + ", " + context + ", " + actingAs + "]";
    }
  }

  /** One upstream call of the request, across its rounds. */
  private final class RoundTrip {
    final CompletableFuture<JsonRpcResponse> answer = new CompletableFuture<>();

    /** The stage of the supervisor's call the trip waits on now (to cancel it). */
    CompletionStage<CallOutcome> current;

    /** The round the call waits in for the client's answers, or null. */
    CallOutcome.InputRequired asking;

    void follow(CompletionStage<CallOutcome> stage) {
      current = stage;
      stage.whenComplete((outcome, failure) -> onOutcome(this, outcome, failure));
    }

    void cancel() {
      if (asking != null) {
        asking.cancel();
      } else if (current != null) {
        current.toCompletableFuture().cancel(false);
      }
    }
  }

  private final Gateway gateway;
  private final Arrival arrival;
  private final ClientRequests.Client client;
  private final ClientRequests requests;
  private final UpstreamCalls calls;
  private final CallOptions options;

  /** Where the request is; each phase holds what is true in it, and nothing is kept beside it. */
  private sealed interface Phase {}

  /** Answering on an exchange: its first, or a retry's. */
  private sealed interface Open extends Phase {
    RoundExchange exchange();
  }

  /** On the exchange it came with, never parked. */
  private record First(RoundExchange exchange) implements Open {}

  /** On the exchange of the client's retry of {@code round}, under {@code pendingId}. */
  private record Retried(RoundExchange exchange, String pendingId, int round) implements Open {}

  /**
   * Parked, no exchange: the client has round {@code round}'s input requests under a state naming
   * {@code pendingId}; the request waits for its retry until {@code overdue} fires.
   */
  private sealed interface Waiting extends Phase {
    String pendingId();

    int round();

    Cancellable overdue();
  }

  private record Parked(String pendingId, int round, Cancellable overdue) implements Waiting {}

  /** Parked, and its answer came meanwhile: the answer goes to the retry. */
  private record Held(String pendingId, int round, Cancellable overdue, JsonRpcResponse answer)
      implements Waiting {}

  /** Answered or given up. */
  private record Done() implements Phase {}

  private static final Phase DONE = new Done();

  /** The request being answered: the first one, then each retry. */
  private JsonRpcRequest request;

  private final RoundInputs<RoundTrip> inputs = new RoundInputs<>();

  private Phase phase;

  public StatelessRequest(
      Gateway gateway, Arrival arrival, ExchangeSink exchange, boolean acceptsSse) {
    this.gateway = gateway;
    this.arrival = arrival;
    this.request = arrival.request();
    this.phase = new First(new RoundExchange(exchange, acceptsSse));
    StatelessEnvelope.Meta meta = StatelessEnvelope.Meta.of(request);
    this.client = ClientRequests.Client.stateless(meta, arrival.cacheScope());
    this.requests = new ClientRequests(arrival.endpoint());
    requests.statelessLogLevel(meta.logLevel());
    this.calls =
        UpstreamCalls.stateless(gateway.supervisor(), arrival.context(), arrival.identity(), this);
    String logLevel = meta.logLevel();
    this.options =
        CallOptions.defaults()
            .withClientCapabilities(meta.clientCapabilities())
            .withLogLevel(logLevel != null && LogLevels.isLevel(logLevel) ? logLevel : null)
            .withNotifications(this::notification)
            .withInputResponses(RoundInputs.responsesOf(request))
            .endingWithoutCapability();
  }

  // ----------------------------------------------------------------------------------------- start

  /**
   * Answers {@code server/discover} from what the servers answer now, or runs the request with what
   * they are known to offer (learning it first when a server is unknown).
   */
  public void start() {
    actAs();
    Map<String, JsonNode> offers = gateway.offers().of(arrival.endpoint().servers());
    if (McpMethods.SERVER_DISCOVER.equals(request.method()) || offers == null) {
      requests
          .initialize(client, calls)
          .whenComplete((outcome, failure) -> onInitialized(outcome, failure));
    } else {
      requests.knowUpstreams(offers);
      run();
    }
  }

  /**
   * Tells the supervisor whom the request's calls act as, in its own context and its caller's
   * (which that keeps, as its calls do: an idle one's idle time starts again, so the calls that
   * follow find whom it acts as, and it is forgotten even if none follows).
   */
  private void actAs() {
    if (arrival.actingAs() == null) {
      return;
    }
    gateway.supervisor().actAs(arrival.context(), arrival.actingAs(), arrival.callerToken());
    if (arrival.identity() != null) {
      gateway
          .supervisor()
          .actAs(
              arrival.identity(),
              arrival.actingAs(),
              arrival.callerToken(),
              CallerKind.STATELESS_IN_CONTEXT);
    }
  }

  private synchronized void onInitialized(Outcome outcome, Throwable failure) {
    if (outcome instanceof Outcome.Initialized initialized) {
      gateway.offers().learn(initialized.upstreams());
    }
    if (calls.acquiredAny()) { // the leases only served to ask: the calls need none
      gateway.supervisor().releaseAll(arrival.context());
      actAs(); // the release forgot it
    }
    if (phase == DONE) { // given up meanwhile
      return;
    }
    JsonRpcResponse initialized =
        failure != null
            ? JsonRpcResponse.failure(request.id(), INTERNAL_ERROR, "internal error")
            : requests.apply(request, outcome);
    if (initialized.isError()) {
      answer(initialized, 200);
    } else if (McpMethods.SERVER_DISCOVER.equals(request.method())) {
      answer(
          client.answer(
              request,
              JsonRpcResponse.success(
                  request.id(), StatelessEnvelope.discoverResult(initialized.result()))),
          200);
    } else {
      run();
    }
  }

  private void run() {
    ClientRequests.Started started =
        McpMethods.TOOLS_CALL.equals(request.method()) && arrival.paramHeaders() != null
            ? new ClientRequests.Started(
                null,
                ParamHeaderCheck.checked(
                    request, arrival.paramHeaders(), arrival.endpoint(), requests, calls),
                true)
            : requests.start(request, calls);
    if (started.answer() != null) {
      synchronized (this) {
        if (phase != DONE) {
          answer(started.answer(), 200);
        }
      }
    } else {
      started.outcome().whenComplete(this::onAnswered);
    }
  }

  /** The request's outcome: its answer, on the exchange now open (or held for the retry). */
  private synchronized void onAnswered(Outcome outcome, Throwable failure) {
    if (phase == DONE) {
      return;
    }
    if (failure != null) {
      log.error("{} of a stateless client failed", request.method(), failure);
    }
    JsonRpcResponse response =
        failure != null
            ? JsonRpcResponse.failure(request.id(), INTERNAL_ERROR, "internal error")
            : client.answer(request, requests.apply(request, outcome));
    if (phase instanceof Parked parked) {
      phase = new Held(parked.pendingId(), parked.round(), parked.overdue(), response);
      return;
    }
    int status =
        outcome instanceof Outcome.Refused refused
            ? refused.httpStatus()
            : response.isError() && response.error().code() == MISSING_CLIENT_CAPABILITY
                ? 400
                : 200;
    answer(response, status);
  }

  // ---------------------------------------------------------------------------------- round trips

  @Override
  public CompletableFuture<JsonRpcResponse> call(
      String context,
      CallerKind caller,
      String server,
      String method,
      JsonNode params,
      Duration deadline) {
    CallOptions callOptions = options.withCaller(caller);
    RoundTrip trip = new RoundTrip();
    trip.answer.whenComplete(
        (response, failure) -> {
          if (trip.answer.isCancelled()) {
            synchronized (this) {
              trip.cancel();
            }
          }
        });
    synchronized (this) {
      trip.follow(
          gateway
              .supervisor()
              .call(
                  context,
                  server,
                  method,
                  params,
                  deadline == null ? callOptions : callOptions.withDeadline(deadline)));
    }
    return trip.answer;
  }

  private synchronized void onOutcome(RoundTrip trip, CallOutcome outcome, Throwable failure) {
    if (failure != null) {
      trip.asking = null;
      trip.answer.completeExceptionally(failure);
    } else if (outcome instanceof CallOutcome.Complete complete) {
      trip.asking = null;
      trip.answer.complete(complete.response());
    } else if (outcome instanceof CallOutcome.InputRequired round) {
      trip.asking = round;
      if (phase == DONE) {
        round.cancel();
        return;
      }
      inputs.ask(trip, round.inputRequests());
      if (phase instanceof Open open) {
        park(open);
      }
    }
  }

  /**
   * The client gets every input still asked for, under a state naming this request and round; the
   * request waits for its retry.
   */
  private void park(Open open) {
    String pendingId;
    int round;
    if (open instanceof Retried retried) {
      pendingId = retried.pendingId();
      round = retried.round() + 1;
    } else {
      pendingId = gateway.pending().park(this);
      round = 1;
    }
    GatewaySettings settings = gateway.settings();
    long expiresAt =
        settings.requestStates().nowMillis() + settings.serverRequestTimeout().toMillis();
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.put("resultType", "input_required");
    result.set("inputRequests", inputs.inputRequests());
    result.put(
        "requestState",
        settings
            .requestStates()
            .seal(
                new RequestStates.State(
                    pendingId,
                    round,
                    request.method(),
                    StatelessEnvelope.nameOf(request),
                    arrival.principal(),
                    expiresAt,
                    gateway.pending().node())));
    Cancellable overdue =
        gateway
            .scheduler()
            .scheduleOnce(
                settings.serverRequestTimeout(),
                () -> onOverdue(round),
                gateway.supervisor().actorSystem().executionContext());
    // parked before the exchange's last event: an exchange that ends tells exchangeEnded
    phase = new Parked(pendingId, round, overdue);
    open.exchange().send(JsonRpcResponse.success(request.id(), result));
  }

  /**
   * The client retried with the state of a round: its answers go upstream, and the request answers
   * on the retry's exchange (at once with a new round if something is still unanswered).
   */
  public synchronized void resume(
      JsonRpcRequest retry, RequestStates.State state, ExchangeSink on, boolean sse) {
    if (!(phase instanceof Waiting waiting) || state.round() != waiting.round()) {
      on.tell(PendingRounds.noRoundWaiting(retry));
      return;
    }
    waiting.overdue().cancel();
    request = retry;
    phase = new Retried(new RoundExchange(on, sse), waiting.pendingId(), waiting.round());
    if (waiting instanceof Held held) {
      answer(held.answer().withId(retry.id()), 200);
      return;
    }
    // what is left unanswered a call asks for again: its next stage is a new round
    inputs
        .answeredBy(retry)
        .forEach(
            (trip, given) -> {
              CallOutcome.InputRequired asked = trip.asking;
              trip.asking = null;
              trip.follow(asked.answer(given));
            });
  }

  /** The client did not retry in time: the request is given up. */
  private synchronized void onOverdue(int parkedRound) {
    if (phase instanceof Waiting waiting && waiting.round() == parkedRound) {
      abandon("its client did not retry its input_required request in time");
    }
  }

  // ----------------------------------------------------------------------------- exchange and end

  /** A call's progress or log: on the exchange, if one is open. */
  private synchronized void notification(JsonRpcNotification notification) {
    if (phase instanceof Open open) {
      open.exchange().notification(notification);
    }
  }

  /** An exchange is over: if it is still the one to answer on, its client went away. */
  public synchronized void exchangeEnded(ExchangeSink ended) {
    if (phase instanceof Open open && open.exchange().is(ended)) {
      abandon("its client went away");
    }
  }

  /** Gives the request up: every call is cancelled upstream, what it holds released. */
  public synchronized void abandon(String why) {
    if (phase == DONE) {
      return;
    }
    log.debug("stateless {} given up: {}", request.method(), why);
    Phase was = finish();
    if (was instanceof Open open) {
      open.exchange().refuse(why);
    }
    release(was);
  }

  /** The answer, with {@code status} if it is all the exchange sends; the request is done. */
  private void answer(JsonRpcResponse response, int status) {
    Open open = (Open) finish();
    open.exchange().answer(response, status);
    release(open);
  }

  /**
   * Done, before the exchange's last event (one that ends tells {@link #exchangeEnded}); answers
   * the phase it was in.
   */
  private Phase finish() {
    Phase was = phase;
    phase = DONE;
    return was;
  }

  /** What the request held in the phase it ended in, let go. */
  private void release(Phase was) {
    if (was instanceof Retried retried) {
      gateway.pending().remove(retried.pendingId());
    } else if (was instanceof Waiting waiting) {
      gateway.pending().remove(waiting.pendingId());
      waiting.overdue().cancel();
    }
    calls.cancelAll(); // a call still running or waiting in a round is cancelled upstream
    if (arrival.actingAs() != null) {
      gateway.supervisor().releaseAll(arrival.context()); // forgets whom it acted as
    }
  }
}
