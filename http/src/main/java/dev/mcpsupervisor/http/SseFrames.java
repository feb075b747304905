package dev.mcpsupervisor.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.io.UncheckedIOException;
import org.apache.pekko.util.ByteString;

/**
 * Server-sent events framing for JSON-RPC messages. Each message is one {@code message} event whose
 * data is the compact JSON (Jackson escapes control characters, so the data never holds a raw line
 * break). Keep-alives are SSE comments, which clients ignore (an empty {@code data:} event would
 * reach them as an empty message).
 */
final class SseFrames {

  static final ByteString KEEP_ALIVE = ByteString.fromString(": keep-alive\n\n");

  private static final ByteString EVENT_PREFIX = ByteString.fromString("event: message\ndata: ");
  private static final ByteString EVENT_END = ByteString.fromString("\n\n");

  private SseFrames() {}

  static ByteString event(JsonNode json) {
    try {
      return EVENT_PREFIX
          .concat(ByteString.fromArray(JsonRpcCodec.mapper().writeValueAsBytes(json)))
          .concat(EVENT_END);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
