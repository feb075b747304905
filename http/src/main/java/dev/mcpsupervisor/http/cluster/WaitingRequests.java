package dev.mcpsupervisor.http.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The requests a {@link NodeDesk} holds back until the node they go to is listed, or reachable
 * again, each until its own deadline. Plain and immutable: the desk keeps it in its behaviour and
 * looks again at every change of the desks and on a timer.
 *
 * @param entries in the order they began to wait
 */
record WaitingRequests(List<WaitingRequests.Waiting> entries) {

  /** One request, and when it stops waiting ({@link System#nanoTime()} time). */
  record Waiting(NodeDesk.Command request, long deadlineNanos) {}

  /**
   * How long a request waits for the node it names to be listed here: a node that has just joined
   * is listed on the others within a gossip round or two of the receptionist.
   */
  static final Duration UNKNOWN_NODE = Duration.ofSeconds(5);

  /**
   * How long a session's request waits for its unreachable node: it comes back, or the split-brain
   * resolver downs it (after {@code stable-after}) and another node adopts the session.
   */
  static final Duration UNREACHABLE_NODE = Duration.ofSeconds(60);

  static final WaitingRequests NONE = new WaitingRequests(List.of());

  WaitingRequests {
    entries = List.copyOf(entries);
  }

  /** These and {@code request}, which waits {@code patience} from {@code nowNanos}. */
  WaitingRequests plus(NodeDesk.Command request, Duration patience, long nowNanos) {
    List<Waiting> more = new ArrayList<>(entries);
    more.add(new Waiting(request, nowNanos + patience.toNanos()));
    return new WaitingRequests(more);
  }

  /** These but those {@code leaving} picks, in the same order. */
  WaitingRequests without(Predicate<NodeDesk.Command> leaving) {
    return new WaitingRequests(
        entries.stream().filter(each -> !leaving.test(each.request())).toList());
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }

  /**
   * A look at every request at {@code nowNanos}: those {@code mustWait} no longer holds back go
   * now, whatever their deadline; of the others, those past their deadline wait no more.
   */
  Sorted sort(long nowNanos, Predicate<NodeDesk.Command> mustWait) {
    List<NodeDesk.Command> ready = new ArrayList<>();
    List<NodeDesk.Command> expired = new ArrayList<>();
    List<Waiting> still = new ArrayList<>();
    for (Waiting each : entries) {
      if (!mustWait.test(each.request())) {
        ready.add(each.request());
      } else if (nowNanos - each.deadlineNanos() >= 0) {
        expired.add(each.request());
      } else {
        still.add(each);
      }
    }
    return new Sorted(List.copyOf(ready), List.copyOf(expired), new WaitingRequests(still));
  }

  /**
   * What {@link #sort} found.
   *
   * @param ready to be routed now, in the order they began to wait
   * @param expired to be told their node did not come (back) in time
   * @param waiting those that still wait
   */
  record Sorted(
      List<NodeDesk.Command> ready, List<NodeDesk.Command> expired, WaitingRequests waiting) {}
}
