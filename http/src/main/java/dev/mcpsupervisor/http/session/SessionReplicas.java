package dev.mcpsupervisor.http.session;

import dev.mcpsupervisor.actors.cluster.Membership;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.ddata.Key;
import org.apache.pekko.cluster.ddata.LWWMap;
import org.apache.pekko.cluster.ddata.LWWMapKey;
import org.apache.pekko.cluster.ddata.SelfUniqueAddress;
import org.apache.pekko.cluster.ddata.typed.javadsl.DistributedData;
import org.apache.pekko.cluster.ddata.typed.javadsl.Replicator;
import org.apache.pekko.cluster.ddata.typed.javadsl.ReplicatorMessageAdapter;

/**
 * The cluster's copy of every 2025-era session's {@link SessionRecord}, in Pekko Distributed Data:
 * a session publishes its record whenever its protocol state changes, and a node asked for a
 * session whose node is gone finds the record here and adopts the session. Records are spread over
 * {@link #BUCKETS} last-writer-wins maps keyed by session id, so no one map grows with every
 * session of the cluster. Written to a majority of the nodes, so a record survives the loss of any
 * minority; read from a majority, so an adopter never misses a record a majority holds. A record
 * whose node is gone and which no node adopted within a sweep interval (the sessions' idle timeout)
 * is removed by the leader, as an idle session would have ended. One per node, in a cluster only.
 */
public final class SessionReplicas {

  public interface Command {}

  /** A session's record as it is now (its id is the key). */
  public record Publish(SessionRecord record) implements Command {}

  /** The session ended for good (deleted, expired): its record goes. */
  public record Forget(String sessionId) implements Command {}

  /** The record of {@code sessionId}, or null in {@link Found}. */
  public record Find(String sessionId, ActorRef<Found> replyTo) implements Command {}

  /**
   * @param record null when none was found
   * @param known whether a missing record means the session has none: not when no majority answered
   *     in time and this node's own copy lacks it (a node that has just joined has no copy yet)
   */
  public record Found(String sessionId, SessionRecord record, boolean known) {}

  private record Written(Replicator.UpdateResponse<LWWMap<String, SessionRecord>> response)
      implements Command {}

  private record Read(
      Find find, boolean local, Replicator.GetResponse<LWWMap<String, SessionRecord>> response)
      implements Command {}

  /** Time to look for records no node serves. */
  private enum Sweep implements Command {
    INSTANCE
  }

  /**
   * The idle timeout in force changed (a reload): the next sweep comes one new timeout from now,
   * not at the end of the interval it replaced.
   */
  enum Rearm implements Command {
    INSTANCE
  }

  private record Swept(Replicator.GetResponse<LWWMap<String, SessionRecord>> response)
      implements Command {}

  /**
   * How a node's sessions reach the replicas: {@link #NONE} on a single node, where nothing is
   * replicated.
   *
   * @param node this node's incarnation ({@code Membership.selfNode}): where its sessions say they
   *     are served
   */
  public record Replication(String node, ActorRef<Command> replicas) {
    public static final Replication NONE = new Replication(null, null);

    public boolean on() {
      return replicas != null;
    }

    void publish(SessionRecord record) {
      if (replicas != null) {
        replicas.tell(new Publish(record));
      }
    }

    void rearm() {
      if (replicas != null) {
        replicas.tell(Rearm.INSTANCE);
      }
    }

    void forget(String sessionId) {
      if (replicas != null) {
        replicas.tell(new Forget(sessionId));
      }
    }
  }

  /** How many maps the records are spread over. */
  static final int BUCKETS = 16;

  private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(2);

  /**
   * @param sweepEvery how often the leader removes the records of sessions no node has served since
   *     the last sweep (their node is gone and nobody asked for them): the sessions' idle timeout
   *     in force, read at each sweep, so such a session expires as an idle one does
   */
  public static Behavior<Command> create(Membership membership, Supplier<Duration> sweepEvery) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers -> {
                  timers.startSingleTimer(Sweep.INSTANCE, sweepEvery.get());
                  return DistributedData
                      .<Command, LWWMap<String, SessionRecord>>withReplicatorMessageAdapter(
                          replicator ->
                              new SessionReplicas(
                                      context,
                                      replicator,
                                      DistributedData.get(context.getSystem()).selfUniqueAddress(),
                                      membership,
                                      timers,
                                      sweepEvery)
                                  .serving(Map.of()));
                }));
  }

  private final ActorContext<Command> context;
  private final ReplicatorMessageAdapter<Command, LWWMap<String, SessionRecord>> replicator;
  private final SelfUniqueAddress self;
  private final Membership membership;
  private final TimerScheduler<Command> timers;
  private final Supplier<Duration> sweepEvery;

  private SessionReplicas(
      ActorContext<Command> context,
      ReplicatorMessageAdapter<Command, LWWMap<String, SessionRecord>> replicator,
      SelfUniqueAddress self,
      Membership membership,
      TimerScheduler<Command> timers,
      Supplier<Duration> sweepEvery) {
    this.context = context;
    this.replicator = replicator;
    this.self = self;
    this.membership = membership;
    this.timers = timers;
    this.sweepEvery = sweepEvery;
  }

  /**
   * @param orphans by bucket, the sessions whose node was gone at the last sweep
   */
  private Behavior<Command> serving(Map<String, Set<String>> orphans) {
    return Behaviors.receive(Command.class)
        .onMessage(
            Publish.class,
            publish -> {
              SessionRecord record = publish.record();
              update(record.id(), map -> map.put(self, record.id(), record));
              return Behaviors.same();
            })
        .onMessage(
            Forget.class,
            forget -> {
              update(forget.sessionId(), map -> map.remove(self, forget.sessionId()));
              return Behaviors.same();
            })
        .onMessage(
            Find.class,
            find -> {
              read(find, false);
              return Behaviors.same();
            })
        .onMessage(
            Rearm.class,
            rearm -> {
              timers.startSingleTimer(Sweep.INSTANCE, sweepEvery.get());
              return Behaviors.same();
            })
        .onMessage(
            Sweep.class,
            sweep -> {
              timers.startSingleTimer(Sweep.INSTANCE, sweepEvery.get());
              if (membership.isLeader()) {
                for (int bucket = 0; bucket < BUCKETS; bucket++) {
                  Key<LWWMap<String, SessionRecord>> key = bucketKey(bucket);
                  replicator.askGet(
                      replyTo -> new Replicator.Get<>(key, Replicator.readLocal(), replyTo),
                      Swept::new);
                }
              }
              return Behaviors.same();
            })
        .onMessage(Swept.class, swept -> serving(sweep(swept, orphans)))
        .onMessage(
            Read.class,
            read -> {
              if (read.response() instanceof Replicator.GetFailure && !read.local()) {
                // no majority answered in time (nodes leaving at once, or joining): this node's
                // copy
                read(read.find(), true);
              } else {
                read.find()
                    .replyTo()
                    .tell(found(read.find().sessionId(), read.local(), read.response()));
              }
              return Behaviors.same();
            })
        .onMessage(
            Written.class,
            written -> {
              if (!(written.response() instanceof Replicator.UpdateSuccess)) {
                // written here, and gossip carries it on: only a majority's receipt is late
                context.getLog().debug("session record not on a majority yet: {}", written);
              }
              return Behaviors.same();
            })
        .build();
  }

  /**
   * Removes the records of a bucket whose node was gone at the last sweep too; the orphans of this
   * one by bucket.
   */
  private Map<String, Set<String>> sweep(Swept swept, Map<String, Set<String>> orphans) {
    if (!(swept.response() instanceof Replicator.GetSuccess<LWWMap<String, SessionRecord>> got)) {
      return orphans;
    }
    Set<String> members = new HashSet<>();
    membership.members().forEach(member -> members.add(member.node()));
    String bucket = got.key().id();
    Set<String> before = orphans.getOrDefault(bucket, Set.of());
    Set<String> now = new HashSet<>();
    for (SessionRecord record : got.dataValue().getEntries().values()) {
      if (members.contains(record.home())) {
        continue;
      }
      if (before.contains(record.id())) {
        context.getSelf().tell(new Forget(record.id()));
      } else {
        now.add(record.id());
      }
    }
    Map<String, Set<String>> next = new HashMap<>(orphans);
    next.put(bucket, Set.copyOf(now));
    return Map.copyOf(next);
  }

  /** Changes the map that holds {@code sessionId}'s record, on a majority of the nodes. */
  private void update(
      String sessionId,
      Function<LWWMap<String, SessionRecord>, LWWMap<String, SessionRecord>> change) {
    replicator.askUpdate(
        replyTo ->
            new Replicator.Update<>(
                keyOf(sessionId),
                LWWMap.create(),
                new Replicator.WriteMajority(WRITE_TIMEOUT),
                replyTo,
                change),
        Written::new);
  }

  private void read(Find find, boolean local) {
    replicator.askGet(
        replyTo ->
            new Replicator.Get<>(
                keyOf(find.sessionId()),
                local ? Replicator.readLocal() : new Replicator.ReadMajority(READ_TIMEOUT),
                replyTo),
        response -> new Read(find, local, response));
  }

  /** What a read says of {@code sessionId}'s record; {@code local}: this node's copy alone. */
  static Found found(
      String sessionId,
      boolean local,
      Replicator.GetResponse<LWWMap<String, SessionRecord>> response) {
    SessionRecord record =
        response instanceof Replicator.GetSuccess<LWWMap<String, SessionRecord>> got
            ? got.dataValue().getEntries().get(sessionId)
            : null;
    return new Found(sessionId, record, record != null || !local);
  }

  static Key<LWWMap<String, SessionRecord>> keyOf(String sessionId) {
    return bucketKey(Math.floorMod(sessionId.hashCode(), BUCKETS));
  }

  private static Key<LWWMap<String, SessionRecord>> bucketKey(int bucket) {
    return LWWMapKey.create("mcp-sessions-" + bucket);
  }
}
