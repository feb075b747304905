package dev.mcpsupervisor.http.routes;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.http.access.McpRefusals;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.McpResponses;
import dev.mcpsupervisor.http.stream.SseFrames;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * Turns the head of an {@link Exchange} (its first event and the rest) into the HTTP answer: an
 * error when the session refused, 202 when nothing needed an answer, JSON when the answers came
 * alone and the client accepts it, else an SSE stream.
 */
final class ExchangeResponses {

  private final McpRefusals refusals;
  private final Duration sseKeepAlive;

  ExchangeResponses(McpRefusals refusals, Duration sseKeepAlive) {
    this.refusals = refusals;
    this.sseKeepAlive = sseKeepAlive;
  }

  /**
   * A POST's answer.
   *
   * @param batch whether the body was a JSON array, so the answers go back as one
   * @param newSessionId the id to return in Mcp-Session-Id (initialize only, and not when its
   *     single answer is an error), else null
   * @param streaming run when the answer is a stream that carries later events, before it is built
   */
  HttpResponse post(
      Exchange.Head head,
      AcceptHeader accept,
      boolean batch,
      String newSessionId,
      Runnable streaming) {
    if (head.first() instanceof Exchange.Refused refused) {
      return refusals.refused(refused);
    }
    if (head.first() instanceof Exchange.Complete complete) {
      List<ObjectNode> answers = complete.responses();
      if (answers.isEmpty()) {
        return McpResponses.accepted();
      }
      boolean succeeded = answers.size() != 1 || !answers.get(0).has("error");
      HttpResponse response =
          accept.json()
              ? McpResponses.json(StatusCodes.OK, batch ? arrayOf(answers) : answers.get(0))
              : McpResponses.eventStream(Source.from(answers).map(SseFrames::event), sseKeepAlive);
      return withSessionId(response, succeeded ? newSessionId : null);
    }
    streaming.run();
    return withSessionId(McpResponses.eventStream(streamOf(head), sseKeepAlive), newSessionId);
  }

  /**
   * A GET's answer: the server-to-client stream unless refused.
   *
   * @param streaming run when the answer is the stream, before it is built
   */
  HttpResponse get(Exchange.Head head, Runnable streaming) {
    if (head.first() instanceof Exchange.Refused refused) {
      return refusals.refused(refused);
    }
    streaming.run();
    return McpResponses.eventStream(streamOf(head), sseKeepAlive);
  }

  private static Source<ByteString, NotUsed> streamOf(Exchange.Head head) {
    return Source.single(head.first()).concat(head.rest()).mapConcat(ExchangeResponses::frames);
  }

  private static List<ByteString> frames(Exchange.Event event) {
    if (event instanceof Exchange.Message message) {
      return List.of(SseFrames.event(message.json(), message.eventId()));
    }
    if (event instanceof Exchange.Primed primed) {
      return List.of(SseFrames.priming(primed.eventId(), primed.retryMillis()));
    }
    if (event instanceof Exchange.Complete complete) {
      return complete.responses().stream().map(SseFrames::event).toList();
    }
    return List.of();
  }

  private static ArrayNode arrayOf(List<ObjectNode> answers) {
    ArrayNode array = JsonRpcCodec.mapper().createArrayNode();
    answers.forEach(array::add);
    return array;
  }

  private static HttpResponse withSessionId(HttpResponse response, String sessionId) {
    return sessionId == null
        ? response
        : response.addHeader(RawHeader.create(McpResponses.SESSION_ID_HEADER, sessionId));
  }
}
