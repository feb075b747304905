package dev.mcpsupervisor.actors.key;

import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.actors.session.KeyEnvironment;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The list calls of one server key answered through its {@link ListCache}, on the key actor's
 * thread: the cache decides, this sends the fetches, answers the callers and keeps each waiting
 * caller's deadline (a fetch serves callers with other deadlines than its own). The key actor
 * routes {@link Event}s here.
 */
public final class ListRequests {

  /** What the key actor passes on to {@link #on}. */
  interface Event extends ServerKeyActor.Command {}

  /** The answer to a fetch (through a message adapter). */
  private record Fetched(JsonRpcResponse response) implements Event {}

  /**
   * A caller waiting for a fetch reached its deadline; {@code fetch}: the fetch itself reached its
   * own (a safety net: its session answers at the deadline).
   */
  private record Expired(long callId, boolean fetch) implements Event {}

  private final ListCache cache;
  private final TimerScheduler<ServerKeyActor.Command> timers;
  private final Duration askMargin;

  ListRequests(
      KeyEnvironment env,
      ActorContext<ServerKeyActor.Command> context,
      TimerScheduler<ServerKeyActor.Command> timers) {
    this.timers = timers;
    this.askMargin = env.settings().askMargin();
    this.cache =
        new ListCache(
            env.settings().listCacheTtl(),
            env.server().isolation() == Isolation.CONTEXT,
            env.server().requestTimeout(),
            context.messageAdapter(JsonRpcResponse.class, Fetched::new),
            System::nanoTime);
  }

  /**
   * Answers a list call from the cache, or makes it wait for a fetch (sent with {@code forward});
   * false when the call is not one the cache serves.
   */
  boolean serve(UpstreamCall call, Consumer<UpstreamCall> forward) {
    ListCache.Lookup lookup = cache.lookup(call);
    if (lookup == null) {
      return false;
    }
    if (lookup instanceof ListCache.Hit hit) {
      call.answer(hit.response(), call.delivery());
      return true;
    }
    startTimer(new Expired(call.callId(), false), call.deadline());
    if (lookup instanceof ListCache.Fetch fetch) {
      startTimer(new Expired(call.callId(), true), fetch.call().deadline().plus(askMargin));
      forward.accept(fetch.call());
    }
    return true;
  }

  /** A session's upstream sent {@code notifications/<kind>/list_changed}: those lists go. */
  void listChanged(String notification) {
    cache.listChanged(notification);
  }

  void on(Event event) {
    if (event instanceof Fetched fetched) {
      timers.cancel(new Expired(fetched.response().id().asLong(), true));
      cache.fetched(fetched.response()).forEach(this::answer);
    } else if (event instanceof Expired expired && expired.fetch()) {
      cache.fetchTimedOut(expired.callId()).forEach(this::answer);
    } else if (event instanceof Expired expired) {
      answer(cache.waitTimedOut(expired.callId()));
    }
  }

  /**
   * A caller gave up: answered as cancelled if it was waiting. True when the cancel is handled here
   * — also when it names a fetch, which goes on for the other callers waiting for it.
   */
  boolean cancel(long callId) {
    ListCache.Answer waiting = cache.cancelled(callId);
    answer(waiting);
    return waiting != null || cache.isFetch(callId);
  }

  /** The context's lease ended: what is cached for it alone goes. */
  void released(String context) {
    cache.released(context);
  }

  /** A session lost its connection: the server may come back with other lists. */
  void connectionLost() {
    cache.clear();
  }

  /** How many callers wait for a fetch now. */
  int waiting() {
    return cache.waiting();
  }

  /** The key shuts down: every waiting caller is told so. */
  void shutdown() {
    for (UpstreamCall call : cache.drain()) {
      call.answer(call.errorResponse(SupervisorErrors.shuttingDown()), call.delivery());
    }
  }

  private void answer(ListCache.Answer answer) {
    if (answer != null) {
      timers.cancel(new Expired(answer.call().callId(), false));
      answer.call().answer(answer.response(), answer.call().delivery());
    }
  }

  private void startTimer(Expired expired, Duration delay) {
    timers.startSingleTimer(expired, expired, delay);
  }
}
