package dev.mcpsupervisor.http;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.dispatch.Envelope;
import org.apache.pekko.dispatch.MailboxType;
import org.apache.pekko.dispatch.MessageQueue;
import org.apache.pekko.dispatch.UnboundedQueueBasedMessageQueue;
import scala.Option;

/**
 * An unbounded mailbox that notes every message put in it while {@link #start} is on: an actor
 * delivery, counted where it happens (adapters and a reader thread's hand-off included; a completed
 * future or a system message is none). Set as {@code
 * pekko.actor.typed.default-mailbox.mailbox-type}.
 */
public final class CountingMailbox implements MailboxType {

  /** The receivers of the messages enqueued since {@link #start}, in order; null when off. */
  private static volatile List<String> noted;

  public CountingMailbox(ActorSystem.Settings settings, Config config) {}

  static synchronized void start() {
    noted = new ArrayList<>();
  }

  /** What was noted since {@link #start}, by the receiver's path under the guardian. */
  static synchronized List<String> stop() {
    List<String> taken = noted;
    noted = null;
    return taken;
  }

  /**
   * Waits until {@code count} messages of the class named {@code type} were noted since {@link
   * #start}: for a delivery that trails a call's answer (it falls in the window it belongs to).
   */
  static synchronized void awaitNoted(String type, int count, Duration within)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (noted.stream().filter(each -> each.endsWith(" " + type)).count() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError(count + " " + type + " not noted within " + within + ": " + noted);
      }
      CountingMailbox.class.wait(TimeUnit.NANOSECONDS.toMillis(left) + 1);
    }
  }

  private static synchronized void note(ActorRef receiver, Object message) {
    if (noted != null && receiver.path().toStringWithoutAddress().startsWith("/user")) {
      noted.add(
          receiver.path().toStringWithoutAddress() + " " + message.getClass().getSimpleName());
      CountingMailbox.class.notifyAll();
    }
  }

  @Override
  public MessageQueue create(Option<ActorRef> owner, Option<ActorSystem> system) {
    return new Counting();
  }

  private static final class Counting extends ConcurrentLinkedQueue<Envelope>
      implements UnboundedQueueBasedMessageQueue {
    @Override
    public java.util.Queue<Envelope> queue() {
      return this;
    }

    @Override
    public void enqueue(ActorRef receiver, Envelope handle) {
      note(receiver, handle.message());
      add(handle);
    }
  }
}
