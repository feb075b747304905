package dev.mcpsupervisor.http.routes;

import dev.mcpsupervisor.actors.Asks;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.util.ByteString;

/**
 * Reading a POST's body within the size limit: a body declared over it is refused with 413 (read
 * and dropped first when not far over, see {@link McpRequestChecks.BodySize}), one that turns out
 * larger or cannot be read in time is refused too; the rest is handed on whole.
 */
final class PostBodies {

  private final McpRequestChecks checks;
  private final Materializer materializer;
  private final LongSupplier maxBodyBytes;
  private final Duration readTimeout;

  PostBodies(
      McpRequestChecks checks,
      Materializer materializer,
      LongSupplier maxBodyBytes,
      Duration readTimeout) {
    this.checks = checks;
    this.materializer = materializer;
    this.maxBodyBytes = maxBodyBytes;
    this.readTimeout = readTimeout;
  }

  /** {@code handler}'s answer to the request's body, or the refusal of a body it cannot have. */
  CompletionStage<HttpResponse> read(
      HttpRequest request, Function<ByteString, CompletionStage<HttpResponse>> handler) {
    McpRequestChecks.BodySize size = checks.bodySize(request);
    if (size == McpRequestChecks.BodySize.REFUSE) {
      return CompletableFuture.completedFuture(checks.tooLarge());
    }
    if (size == McpRequestChecks.BodySize.DRAIN_THEN_REFUSE) {
      return request
          .discardEntityBytes(materializer)
          .completionStage()
          .handle((drained, failure) -> checks.tooLarge());
    }
    return body(request).thenCompose(handler).exceptionally(checks::unreadableBody);
  }

  /**
   * The request's body. A strict entity (the whole body came with the headers; its size was checked
   * against the Content-Length) is taken as it is: Pekko's toStrict would run a stream even for it.
   */
  private CompletionStage<ByteString> body(HttpRequest request) {
    if (request.entity() instanceof HttpEntity.Strict strict) {
      return CompletableFuture.completedFuture(strict.getData());
    }
    // the size limit fails with EntityStreamSizeException; toStrict's own bound is passed in, else
    // it is looked up in the config on every request
    return Asks.sameThread(
            request
                .entity()
                .withSizeLimit(maxBodyBytes.getAsLong())
                .toStrict(readTimeout.toMillis(), Long.MAX_VALUE, materializer))
        .thenApply(HttpEntity.Strict::getData);
  }
}
