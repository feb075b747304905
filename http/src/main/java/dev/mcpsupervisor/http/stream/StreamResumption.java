package dev.mcpsupervisor.http.stream;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * SSE resumability for a 2025-11-25 client (its transport's "Resumability and Redelivery"): every
 * event on its POST and GET streams gets an id {@code <session tag>-<stream>-<event>}, unique
 * within the session and naming its stream; a stream starts with a priming event (an id, a {@code
 * retry}, empty data); its events are kept, bounded by count and bytes, so that a GET with {@code
 * Last-Event-ID} replays what followed that id on that stream and then carries the stream on. A
 * POST stream whose client went away stays open (its answers are kept, not dropped) while the
 * session lives, and at most {@link Settings#maxDetachedStreams} such streams are kept (oldest
 * forgotten first).
 *
 * <p>Sits between the session's {@code DownstreamStreams} and the exchanges: the session tells a
 * stream through {@link #tell}, keyed by the ref the stream was opened with. Sessions of clients
 * before 2025-11-25 get plain events: everything passes through ({@link #DISABLED}); a 2026-07-28
 * request has no session and never comes here. Plain bookkeeping on the session's thread.
 */
public final class StreamResumption {

  /**
   * @param streamAfter a POST not answered within this long becomes a (primed) SSE stream, so a
   *     client that goes away can resume; quicker answers go as JSON
   * @param retry the reconnection delay a priming event tells the client
   * @param maxEvents events kept per stream
   * @param maxBytes bytes of JSON kept per stream
   * @param maxDetachedStreams streams kept per session after their client went away
   * @param closeConnectionAfter a primed POST stream's connection is closed after this long (zero:
   *     never), so the client polls with Last-Event-ID
   */
  public record Settings(
      Duration streamAfter,
      Duration retry,
      int maxEvents,
      long maxBytes,
      int maxDetachedStreams,
      Duration closeConnectionAfter) {

    public static Settings fromConfig(Config c) {
      return new Settings(
          c.getDuration("streamAfter"),
          c.getDuration("retry"),
          c.getInt("maxEvents"),
          c.getBytes("maxBytes"),
          c.getInt("maxDetachedStreams"),
          c.getDuration("closeConnectionAfter"));
    }
  }

  /** Why a GET with Last-Event-ID was not resumed: the HTTP status and what to tell the client. */
  record Refusal(int status, String message) {}

  /** Passes every event through: for sessions that never resume (shared: it keeps nothing). */
  public static final StreamResumption DISABLED = new StreamResumption(null, (delay, ref) -> {});

  /** The session's timers of its POST streams ({@link #timer}), one per stream. */
  public interface PostTimers {
    void start(Duration delay, ExchangeSink post);

    /** The stream is answered: its timer would find nothing to do (a delivery per call saved). */
    default void cancel(ExchangeSink post) {}
  }

  private final Settings settings;

  /** Starts a POST stream's timer ({@link #timer}): to prime it, then to close its connection. */
  private final PostTimers timers;

  /** Tells this session's ids from another's; made with the first event id. */
  private String tag;

  /**
   * By the ref the session tells (a POST's first connection, the GET stream's current one). This
   * and the three below are sparse (see {@link SparseMaps}): a session keeping no stream has none.
   */
  private Map<ExchangeSink, KeptStream> streams = Map.of();

  /** By the connection carrying each stream now. */
  private Map<ExchangeSink, KeptStream> connections = Map.of();

  private Map<Long, KeptStream> byNumber = Map.of();

  /** Streams whose client went away, oldest first. */
  private Set<KeptStream> detached = Set.of();

  private boolean enabled;
  private long nextStream = 1;

  public StreamResumption(Settings settings, PostTimers timers) {
    this.settings = settings;
    this.timers = timers;
  }

  /** The client's protocol is known: 2025-11-25 streams are resumable. */
  public void enableFor(String protocolVersion) {
    enabled = settings != null && ProtocolVersions.V2025_11_25.equals(protocolVersion);
  }

  // ----------------------------------------------------------------------------------- the streams

  /** A POST exchange opened; one that may stream is primed when unanswered for a while. */
  public void opened(ExchangeSink post, boolean acceptsSse) {
    if (!enabled || !acceptsSse) {
      return;
    }
    register(new KeptStream(nextStream++, false, post));
    if (settings.streamAfter().isZero()) {
      timer(post);
    } else {
      timers.start(settings.streamAfter(), post);
    }
  }

  /** The GET stream opened: {@link Exchange.Opened}, then (resumable) a priming event. */
  public void openedGet(ExchangeSink get) {
    get.tell(Exchange.Opened.INSTANCE);
    if (enabled) {
      KeptStream stream = new KeptStream(nextStream++, true, get);
      register(stream);
      primeIfNot(stream);
    }
  }

  /**
   * A POST stream's timer: still unanswered after {@link Settings#streamAfter}, its SSE stream
   * starts now; primed and still unanswered after {@link Settings#closeConnectionAfter}, its
   * connection is closed (the client polls with Last-Event-ID) and what follows is kept for it.
   */
  public void timer(ExchangeSink post) {
    KeptStream stream = streams.get(post);
    if (stream == null || stream.finished) {
      return;
    }
    if (!stream.primed) {
      primeIfNot(stream);
    } else if (!settings.closeConnectionAfter().isZero() && stream.connection == post) {
      // its close timer (priming replaced the first one); a resumed connection stays open
      stream.connection.tell(new Exchange.Complete(List.of()));
      detached(stream.connection);
    }
  }

  /** Tells a stream an event: ids, kept for replay and sent on while connected when resumable. */
  public void tell(ExchangeSink ref, Exchange.Event event) {
    KeptStream stream = streams.get(ref);
    if (stream == null) {
      ref.tell(event);
    } else if (event instanceof Exchange.Message message) {
      primeIfNot(stream);
      keepAndSend(stream, message.json());
    } else if (event instanceof Exchange.Complete complete) {
      timers.cancel(stream.key);
      if (!stream.primed) { // answered before it streamed: a plain JSON (or 202) answer
        forget(stream);
        ref.tell(event);
        return;
      }
      complete.responses().forEach(json -> keepAndSend(stream, json));
      stream.finished = true;
      stream.send(new Exchange.Complete(List.of()));
      if (stream.connection == null && !byNumber.containsKey(stream.number)) {
        forget(stream); // evicted while away: nothing to replay
      }
    } else {
      ref.tell(event);
    }
  }

  /**
   * A connection ended. Answers whether the session keeps its stream open: a primed, unfinished
   * POST stream stays (its events are kept for the client's return); a finished stream is forgotten
   * (delivered); a GET stream is kept for replay, but the session stops sending on it.
   */
  public boolean detached(ExchangeSink connection) {
    KeptStream stream = connections.get(connection);
    if (stream == null) { // a POST's first connection, after a resume took its stream over
      KeptStream moved = streams.get(connection);
      return moved != null && !moved.isGet;
    }
    connections = SparseMaps.without(connections, connection);
    stream.connection = null;
    if (stream.finished || !stream.primed) {
      forget(stream);
      return false;
    }
    detached = SparseMaps.withLinked(detached, stream);
    while (detached.size() > settings.maxDetachedStreams()) {
      evict(detached.iterator().next());
    }
    return !stream.isGet;
  }

  /**
   * A GET with {@code Last-Event-ID}: the events after it on its stream go on {@code connection},
   * which then carries that stream (the connection that carried it before, if any, ends). Answers
   * null when resumed, else why not (the connection has been told).
   */
  public Refusal resume(String lastEventId, ExchangeSink connection) {
    Refusal refusal = refusal(lastEventId);
    if (refusal != null) {
      connection.tell(Exchange.Refused.of(refusal.status(), refusal.message()));
      return refusal;
    }
    String[] parts = lastEventId.split("-");
    KeptStream stream = byNumber.get(Long.parseLong(parts[1]));
    long after = Long.parseLong(parts[2]);
    if (stream.connection != null) { // its client left without the gateway noticing yet
      connections = SparseMaps.without(connections, stream.connection);
      if (stream.isGet) {
        streams = SparseMaps.without(streams, stream.connection);
      }
      stream.connection.tell(new Exchange.Complete(List.of()));
    }
    detached = SparseMaps.without(detached, stream);
    stream.connection = connection;
    connections = SparseMaps.with(connections, connection, stream);
    if (stream.isGet) {
      streams = SparseMaps.with(streams, connection, stream);
    }
    connection.tell(Exchange.Opened.INSTANCE);
    stream.replayAfter(after, connection);
    if (stream.finished) {
      connection.tell(new Exchange.Complete(List.of()));
    }
    return null;
  }

  /** Whether the id names a GET stream (the session's GET stream then moves to its connection). */
  public boolean isGetStream(String lastEventId) {
    KeptStream stream = streamOf(lastEventId);
    return stream != null && stream.isGet;
  }

  /** Whether the session's events for {@code ref} go through a stream kept here. */
  public boolean carries(ExchangeSink ref) {
    return streams.containsKey(ref);
  }

  public boolean enabled() {
    return enabled;
  }

  // ------------------------------------------------------------------------------------ internals

  private Refusal refusal(String lastEventId) {
    String[] parts = lastEventId.split("-");
    if (!enabled
        || parts.length != 3
        || !parts[0].equals(tag)
        || number(parts[1]) < 1
        || number(parts[2]) < 0) {
      return new Refusal(
          400, "Bad Request: Last-Event-ID " + lastEventId + " is not an event id of this session");
    }
    long streamNumber = number(parts[1]);
    long after = number(parts[2]);
    KeptStream stream = byNumber.get(streamNumber);
    if (stream == null && streamNumber < nextStream) {
      return new Refusal(
          410,
          "Gone: the stream of Last-Event-ID "
              + lastEventId
              + " is no longer kept (delivered, or evicted: at most "
              + settings.maxDetachedStreams()
              + " streams are kept per session)");
    }
    if (stream == null || after >= stream.nextEvent) {
      return new Refusal(
          400, "Bad Request: Last-Event-ID " + lastEventId + " is not an event id of this session");
    }
    if (after < stream.evictedThrough) {
      return new Refusal(
          410,
          "Gone: events after Last-Event-ID "
              + lastEventId
              + " were evicted (a stream keeps its last "
              + settings.maxEvents()
              + " events, "
              + settings.maxBytes()
              + " bytes at most)");
    }
    return null;
  }

  private KeptStream streamOf(String lastEventId) {
    String[] parts = lastEventId.split("-");
    return parts.length == 3 && parts[0].equals(tag) ? byNumber.get(number(parts[1])) : null;
  }

  private static long number(String text) {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private void register(KeptStream stream) {
    streams = SparseMaps.with(streams, stream.key, stream);
    connections = SparseMaps.with(connections, stream.key, stream);
    byNumber = SparseMaps.with(byNumber, stream.number, stream);
  }

  private void forget(KeptStream stream) {
    streams = SparseMaps.withoutValue(SparseMaps.without(streams, stream.key), stream);
    if (stream.connection != null) {
      connections = SparseMaps.without(connections, stream.connection);
    }
    byNumber = SparseMaps.without(byNumber, stream.number);
    detached = SparseMaps.without(detached, stream);
  }

  /**
   * Forgets what a detached stream kept; a POST stream still answering stays known (its later
   * events are dropped) until it finishes.
   */
  private void evict(KeptStream stream) {
    detached = SparseMaps.without(detached, stream);
    byNumber = SparseMaps.without(byNumber, stream.number);
    stream.evictAll();
    if (stream.isGet) {
      forget(stream);
    }
  }

  private void primeIfNot(KeptStream stream) {
    if (!stream.primed) {
      stream.primed = true;
      stream.send(new Exchange.Primed(id(stream, 0), settings.retry().toMillis()));
      if (!stream.isGet && !settings.closeConnectionAfter().isZero()) {
        timers.start(settings.closeConnectionAfter(), stream.key);
      }
    }
  }

  private void keepAndSend(KeptStream stream, ObjectNode json) {
    long event = stream.nextEvent++;
    String id = id(stream, event);
    if (byNumber.containsKey(stream.number)) { // an evicted stream keeps nothing more
      stream.keep(event, id, json, settings.maxEvents(), settings.maxBytes());
    }
    stream.send(new Exchange.Message(json, id));
  }

  private String id(KeptStream stream, long event) {
    tag = tag != null ? tag : Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36);
    return tag + "-" + stream.number + "-" + event;
  }
}
