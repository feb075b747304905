package dev.mcpsupervisor.http.stream;

import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;

/**
 * Takes every event as it comes and holds those its client is not ready for in an {@link
 * EventBuffer}; when that is full the stream fails with {@link Overflow}, so the client sees its
 * stream break rather than miss an event.
 */
final class StreamBufferStage extends GraphStage<FlowShape<Exchange.Event, Exchange.Event>> {

  /** A slow client let more than the stream's byte bound pile up. */
  static final class Overflow extends RuntimeException {
    Overflow(long maxBytes) {
      super("the client reads too slowly: more than " + maxBytes + " bytes of events waiting");
    }
  }

  private final Inlet<Exchange.Event> in = Inlet.create("StreamBuffer.in");
  private final Outlet<Exchange.Event> out = Outlet.create("StreamBuffer.out");
  private final FlowShape<Exchange.Event, Exchange.Event> shape = FlowShape.of(in, out);
  private final long maxBytes;

  StreamBufferStage(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  @Override
  public FlowShape<Exchange.Event, Exchange.Event> shape() {
    return shape;
  }

  @Override
  public GraphStageLogic createLogic(Attributes attributes) {
    return new GraphStageLogic(shape) {
      private final EventBuffer buffer = new EventBuffer(maxBytes);

      {
        setHandler(
            in,
            new AbstractInHandler() {
              @Override
              public void onPush() {
                Exchange.Event event = grab(in);
                if (buffer.isEmpty() && isAvailable(out)) {
                  push(out, event);
                } else if (!buffer.offer(event)) {
                  failStage(new Overflow(maxBytes));
                  return;
                }
                pull(in);
              }

              @Override
              public void onUpstreamFinish() {
                if (buffer.isEmpty()) {
                  completeStage();
                }
              }
            });
        setHandler(
            out,
            new AbstractOutHandler() {
              @Override
              public void onPull() {
                if (!buffer.isEmpty()) {
                  push(out, buffer.poll());
                  if (buffer.isEmpty() && isClosed(in)) {
                    completeStage();
                  }
                }
              }
            });
      }

      @Override
      public void preStart() {
        pull(in);
      }
    };
  }
}
