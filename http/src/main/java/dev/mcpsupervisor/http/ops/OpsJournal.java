package dev.mcpsupervisor.http.ops;

import dev.mcpsupervisor.actors.base.SupervisionEvent;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.QueueOfferResult;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The operations page's event list: the last {@link #CAPACITY} supervision events and operator
 * actions, numbered in the order they happened, and the live streams that follow it ({@code GET
 * /admin/events}). Bounded twice: the list keeps {@link #CAPACITY} entries, and a follower that
 * falls {@link #FOLLOWER_SLACK} entries behind is ended (a browser reconnects with {@code
 * Last-Event-ID} and gets what it missed from the list). Thread-safe: events come from actor
 * threads, followers from the routes'; one lock keeps the numbering and every follower in one
 * order.
 */
public final class OpsJournal {

  public static final int CAPACITY = 500;

  /** How far beyond a replayed list a follower may fall behind before it is ended. */
  static final int FOLLOWER_SLACK = 256;

  /**
   * One line of the list.
   *
   * @param seq 1, 2, 3... in the order recorded; the SSE event id
   * @param kind a {@link SupervisionEvent.Kind#word()}, or an operator action's ("restart
   *     requested", "session closed")
   * @param keyId the server key's id, empty for a downstream session
   * @param session the upstream session's number, or a downstream session's shortened id; empty for
   *     a key's event
   */
  public record Entry(
      long seq,
      Instant at,
      String kind,
      String server,
      String keyId,
      String session,
      String detail) {}

  private final int capacity;
  private final ArrayDeque<Entry> entries = new ArrayDeque<>();
  private final Set<BoundedSourceQueue<Entry>> followers = new LinkedHashSet<>();
  private long nextSeq = 1;

  public OpsJournal() {
    this(CAPACITY);
  }

  OpsJournal(int capacity) {
    this.capacity = capacity;
  }

  public void record(SupervisionEvent event) {
    append(
        event.at(),
        event.kind().word(),
        event.server(),
        event.keyId(),
        event.sessionId() == 0 ? "" : Long.toString(event.sessionId()),
        event.detail());
  }

  /** An operator's action, as the audit trail of the page (and of the log, where its caller is). */
  public void action(String kind, String server, String keyId, String session, String detail) {
    append(Instant.now(), kind, server, keyId, session, detail);
  }

  private synchronized void append(
      Instant at, String kind, String server, String keyId, String session, String detail) {
    Entry entry = new Entry(nextSeq++, at, kind, server, keyId, session, detail);
    entries.addLast(entry);
    if (entries.size() > capacity) {
      entries.removeFirst();
    }
    followers.removeIf(follower -> !offered(follower, entry));
  }

  /** The list as it is now, oldest first. */
  public synchronized List<Entry> entries() {
    return new ArrayList<>(entries);
  }

  /**
   * The entries after {@code afterSeq} (0: all the list holds), then each new one as it is
   * recorded; completes when the follower falls behind (the gateway's routes end it when the
   * gateway stops).
   */
  public Source<Entry, NotUsed> follow(long afterSeq) {
    return Source.<Entry>queue(capacity + FOLLOWER_SLACK)
        .mapMaterializedValue(
            queue -> {
              subscribe(queue, afterSeq);
              return queue;
            })
        .watchTermination(
            (queue, done) -> {
              // a follower whose client went away is forgotten at once, not at the next entry
              done.whenComplete((ok, failure) -> forget(queue));
              return NotUsed.getInstance();
            });
  }

  private synchronized void subscribe(BoundedSourceQueue<Entry> queue, long afterSeq) {
    for (Entry entry : entries) {
      if (entry.seq() > afterSeq) {
        queue.offer(entry); // the buffer holds the whole list: never dropped
      }
    }
    followers.add(queue);
  }

  private synchronized void forget(BoundedSourceQueue<Entry> follower) {
    followers.remove(follower);
  }

  /** How many streams follow the journal now. */
  public synchronized int followers() {
    return followers.size();
  }

  /**
   * Offers {@code entry} to one follower: false when it is to be forgotten. Never throws: it runs
   * on whichever actor told the event. A follower whose stream ended on its own (its client left)
   * is only forgotten; one that fell behind is ended (a browser resumes from its last id).
   */
  static boolean offered(BoundedSourceQueue<Entry> follower, Entry entry) {
    QueueOfferResult result = follower.offer(entry);
    if (result == QueueOfferResult.enqueued()) {
      return true;
    }
    if (result == QueueOfferResult.dropped()) {
      try {
        follower.complete();
      } catch (IllegalStateException endedMeanwhile) {
        // its stream ended on its own between the offer and now: nothing left to end
      }
    }
    return false;
  }
}
