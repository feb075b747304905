package dev.mcpsupervisor.http.stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.io.UncheckedIOException;
import java.time.Duration;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.CacheControl;
import org.apache.pekko.http.javadsl.model.headers.CacheDirectives;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * The HTTP answers of the MCP endpoints: JSON bodies, JSON-RPC error bodies, 202, and SSE streams.
 */
public final class McpResponses {

  public static final String SESSION_ID_HEADER = "Mcp-Session-Id";
  public static final String PROTOCOL_VERSION_HEADER = StatelessEnvelope.PROTOCOL_VERSION_HEADER;

  private McpResponses() {}

  public static HttpResponse json(StatusCode status, JsonNode body) {
    try {
      return HttpResponse.create()
          .withStatus(status)
          .withEntity(
              HttpEntities.create(
                  ContentTypes.APPLICATION_JSON, JsonRpcCodec.mapper().writeValueAsBytes(body)));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A JSON-RPC error response with no id: what the transport answers when it refuses a whole HTTP
   * request.
   */
  public static ObjectNode errorBody(int code, String message) {
    return JsonRpcCodec.toJson(JsonRpcResponse.failure(null, new JsonRpcError(code, message)));
  }

  public static HttpResponse error(StatusCode status, int code, String message) {
    return json(status, errorBody(code, message));
  }

  /** For notifications and responses a client posts: accepted, no body. */
  public static HttpResponse accepted() {
    return HttpResponse.create().withStatus(StatusCodes.ACCEPTED);
  }

  /** An SSE stream of already framed events, with a keep-alive comment whenever it is quiet. */
  public static HttpResponse eventStream(Source<ByteString, NotUsed> frames, Duration keepAlive) {
    return HttpResponse.create()
        .withStatus(StatusCodes.OK)
        .addHeader(CacheControl.create(CacheDirectives.NO_CACHE))
        .withEntity(
            HttpEntities.createChunked(
                MediaTypes.TEXT_EVENT_STREAM.toContentType(),
                frames.keepAlive(keepAlive, () -> SseFrames.KEEP_ALIVE)));
  }
}
