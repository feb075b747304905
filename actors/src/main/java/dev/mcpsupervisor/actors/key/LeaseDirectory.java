package dev.mcpsupervisor.actors.key;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Context and server → the key actor that holds the context's lease on that server, so that the
 * context's leased calls go there without the {@link KeyRouter}: one delivery fewer per call. The
 * router alone writes it, once it has sent a leased call there (and indexed the lease); the callers
 * read it on any thread and send a call, a cancel or a notification straight to that key actor,
 * counted through its {@link KeyGate}, or through the router when they find no entry.
 *
 * <p>Never a lost or misrouted call: an entry goes before the router's lease index forgets the
 * lease (a release, a key actor that stops or is retired by a reconfiguration); a caller that read
 * it just before reaches a key actor whose gate is closed (it goes through the router) or one that
 * sends the call back to the router: it is shutting down, or holds no lease for the context any
 * more. A caller about to change what its context's calls reach (a first listener, a release) is
 * {@link #hold held} first, on its own thread: its next calls go through the router, after that
 * change, until the router has {@link #settled} it.
 *
 * <p>Never a call overtaken: a call that finds no entry goes through the router ({@link
 * KeyRouter.Missed}) and is counted until the router has routed it; while any is, the context's
 * calls go through the router too, after it, and not straight to the key actor past it (the router
 * may enter the lease meanwhile).
 *
 * <p>Only servers that do not act as their caller have entries: whom a context acts as ({@link
 * KeyRouter.ActAs}) picks the key of the others on every call.
 */
public final class LeaseDirectory {

  /** The key actor holding a context's lease, its gate, and the context's delivery (or null). */
  record Entry(
      ActorRef<ServerKeyActor.Command> key,
      KeyGate gate,
      ActorRef<ContextDelivery.Command> delivery) {}

  /**
   * A context's entries by server name, how many changes of its leases are on their way, and how
   * many of its calls are on their way through the router.
   */
  private record Leases(int holds, int routing, Map<String, Entry> byServer) {
    static final Leases NONE = new Leases(0, 0, Map.of());

    boolean empty() {
      return holds == 0 && routing == 0 && byServer.isEmpty();
    }
  }

  private final Map<String, Leases> byContext = new ConcurrentHashMap<>();

  // ------------------------------------------------------------------------------- callers' side

  /**
   * Sends the leased call to its lease's key actor; false when none is known: the caller sends it
   * to the router as {@link KeyRouter.Missed}, counted from here until the router has routed it.
   */
  public boolean send(UpstreamCall call) {
    Entry entry = entryOf(call.context(), call.server());
    if (entry != null && entry.gate().pass()) {
      entry.key().tell(new ServerKeyActor.Direct(call.withDelivery(entry.delivery())));
      return true;
    }
    byContext.compute(
        call.context(),
        (notUsed, leases) -> {
          Leases now = leases == null ? Leases.NONE : leases;
          return new Leases(now.holds(), now.routing() + 1, now.byServer());
        });
    return false;
  }

  /** Sends the cancel of a call to the key actor of the context's lease; false: none known. */
  public boolean cancel(String context, String server, long callId) {
    return tell(context, server, new ServerKeyActor.Cancel(context, callId));
  }

  /** Sends a client notification to the key actor of the context's lease; false: none known. */
  public boolean notify(String context, String server, String method, JsonNode params) {
    return tell(context, server, new ServerKeyActor.Notify(context, method, params));
  }

  /**
   * The caller is about to tell the router a change of the context's leases or listener: the
   * context's calls go through the router until the router has processed it ({@link #settled}).
   */
  public void hold(String context) {
    byContext.compute(
        context,
        (notUsed, leases) ->
            leases == null
                ? new Leases(1, 0, Map.of())
                : new Leases(leases.holds() + 1, leases.routing(), Map.of()));
  }

  private boolean tell(String context, String server, ServerKeyActor.Command message) {
    Entry entry = entryOf(context, server);
    if (entry == null || !entry.gate().pass()) {
      return false;
    }
    entry.key().tell(message);
    return true;
  }

  private Entry entryOf(String context, String server) {
    Leases leases = byContext.get(context);
    return leases == null || leases.holds() > 0 || leases.routing() > 0
        ? null
        : leases.byServer().get(server);
  }

  // -------------------------------------------------------------------------------- router's side

  /** The router processed a change the context was {@link #hold held} for. */
  void settled(String context) {
    byContext.computeIfPresent(
        context,
        (notUsed, leases) ->
            orNone(
                new Leases(Math.max(0, leases.holds() - 1), leases.routing(), leases.byServer())));
  }

  /** The router routed (or refused) a {@link KeyRouter.Missed} call of the context. */
  void routed(String context) {
    byContext.computeIfPresent(
        context,
        (notUsed, leases) ->
            orNone(
                new Leases(leases.holds(), Math.max(0, leases.routing() - 1), leases.byServer())));
  }

  /** Null (no entry in the map) for a context with nothing left. */
  private static Leases orNone(Leases leases) {
    return leases.empty() ? null : leases;
  }

  /** The context's leased calls to {@code server} may go to {@code entry} (unless held). */
  void enter(String context, String server, Entry entry) {
    byContext.compute(
        context,
        (notUsed, leases) -> {
          Leases now = leases == null ? Leases.NONE : leases;
          if (now.holds() > 0 || entry.equals(now.byServer().get(server))) {
            return leases;
          }
          Map<String, Entry> byServer = new HashMap<>(now.byServer());
          byServer.put(server, entry);
          return new Leases(0, now.routing(), Map.copyOf(byServer));
        });
  }

  /** The context's entry for {@code server} goes, if it names {@code key} (or any: null). */
  void forget(String context, String server, ActorRef<ServerKeyActor.Command> key) {
    byContext.computeIfPresent(
        context,
        (notUsed, leases) -> {
          Entry entry = leases.byServer().get(server);
          if (entry == null || (key != null && !entry.key().equals(key))) {
            return leases;
          }
          Map<String, Entry> byServer = new HashMap<>(leases.byServer());
          byServer.remove(server);
          return orNone(new Leases(leases.holds(), leases.routing(), Map.copyOf(byServer)));
        });
  }

  /** Every entry of the context goes (its holds and calls on their way stay until counted off). */
  void forgetContext(String context) {
    byContext.computeIfPresent(
        context,
        (notUsed, leases) -> orNone(new Leases(leases.holds(), leases.routing(), Map.of())));
  }
}
