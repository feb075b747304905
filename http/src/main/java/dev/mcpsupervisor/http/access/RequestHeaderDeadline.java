package dev.mcpsupervisor.http.access;

import java.time.Duration;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.BidiShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.javadsl.BidiFlow;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.stream.stage.TimerGraphStageLogic;
import org.apache.pekko.util.ByteString;

/**
 * Closes a connection that does not deliver a request's headers within a deadline: counted from the
 * connection's start and from the end of each response (so it also ends idle keep-alive
 * connections), paused while a request is being served. Pekko HTTP has no such timeout: its idle
 * timeout is reset by every byte, so a client dribbling a header byte by byte held a connection for
 * ever, and its request timeout would cut long SSE answers. Materialized once per connection (the
 * server flow is).
 */
public final class RequestHeaderDeadline
    extends GraphStage<BidiShape<HttpRequest, HttpRequest, HttpResponse, HttpResponse>> {

  private static final String DEADLINE = "request-header-deadline";

  private final Inlet<HttpRequest> requestIn = Inlet.create("RequestHeaderDeadline.requestIn");
  private final Outlet<HttpRequest> requestOut = Outlet.create("RequestHeaderDeadline.requestOut");
  private final Inlet<HttpResponse> responseIn = Inlet.create("RequestHeaderDeadline.responseIn");
  private final Outlet<HttpResponse> responseOut =
      Outlet.create("RequestHeaderDeadline.responseOut");
  private final BidiShape<HttpRequest, HttpRequest, HttpResponse, HttpResponse> shape =
      BidiShape.of(requestIn, requestOut, responseIn, responseOut);
  private final Duration timeout;

  private RequestHeaderDeadline(Duration timeout) {
    this.timeout = timeout;
  }

  /** {@code handler} behind the deadline: the flow to bind. */
  public static Flow<HttpRequest, HttpResponse, NotUsed> around(
      Flow<HttpRequest, HttpResponse, NotUsed> handler, Duration timeout) {
    return BidiFlow.fromGraph(new RequestHeaderDeadline(timeout)).join(handler);
  }

  @Override
  public BidiShape<HttpRequest, HttpRequest, HttpResponse, HttpResponse> shape() {
    return shape;
  }

  @Override
  public GraphStageLogic createLogic(Attributes attributes) {
    return new TimerGraphStageLogic(shape) {
      private final AsyncCallback<Done> responseWritten = createAsyncCallback(done -> written());

      /**
       * Requests whose response is not written out yet. A streamed response's end is told through
       * an async callback, which may come after the client's next request has arrived: the deadline
       * is armed only once none is left, never under a request being served.
       */
      private int unanswered;

      {
        setHandler(
            requestIn,
            new AbstractInHandler() {
              @Override
              public void onPush() {
                cancelTimer(DEADLINE);
                unanswered++;
                push(requestOut, grab(requestIn));
              }

              @Override
              public void onUpstreamFinish() {
                // a client that half-closes after its request still gets the answer
                complete(requestOut);
              }
            });
        setHandler(
            requestOut,
            new AbstractOutHandler() {
              @Override
              public void onPull() {
                pull(requestIn);
              }

              @Override
              public void onDownstreamFinish(Throwable cause) {
                cancel(requestIn, cause);
              }
            });
        setHandler(
            responseIn,
            new AbstractInHandler() {
              @Override
              public void onPush() {
                push(responseOut, watched(grab(responseIn)));
              }

              @Override
              public void onUpstreamFinish() {
                complete(responseOut);
              }
            });
        setHandler(
            responseOut,
            new AbstractOutHandler() {
              @Override
              public void onPull() {
                pull(responseIn);
              }

              @Override
              public void onDownstreamFinish(Throwable cause) {
                cancel(responseIn, cause);
              }
            });
      }

      @Override
      public void preStart() {
        arm();
      }

      @Override
      public void onTimer(Object key) {
        // the connection's flow ends: Pekko closes it
        completeStage();
      }

      private void arm() {
        scheduleOnce(DEADLINE, timeout);
      }

      private void written() {
        unanswered--;
        if (unanswered == 0) {
          arm();
        }
      }

      /** The response, arming the deadline once its entity is written out. */
      private HttpResponse watched(HttpResponse response) {
        HttpEntity entity = response.entity();
        if (entity.isStrict()) {
          written();
          return response;
        }
        Source<ByteString, Object> data =
            entity
                .getDataBytes()
                .watchTermination(
                    (mat, done) -> {
                      done.whenComplete(
                          (ok, failure) -> responseWritten.invoke(Done.getInstance()));
                      return mat;
                    });
        if (entity.isDefault() && entity.getContentLengthOption().isPresent()) {
          return response.withEntity(
              HttpEntities.create(
                  entity.getContentType(), entity.getContentLengthOption().getAsLong(), data));
        }
        if (entity.isCloseDelimited()) {
          return response.withEntity(
              HttpEntities.createCloseDelimited(entity.getContentType(), data));
        }
        return response.withEntity(HttpEntities.createChunked(entity.getContentType(), data));
      }
    };
  }
}
