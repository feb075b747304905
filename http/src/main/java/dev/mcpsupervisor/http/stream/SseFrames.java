package dev.mcpsupervisor.http.stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.io.UncheckedIOException;
import org.apache.pekko.util.ByteString;

/**
 * Server-sent events framing for JSON-RPC messages. Each message is one {@code message} event whose
 * data is the compact JSON (Jackson escapes control characters, so the data never holds a raw line
 * break). Keep-alives are SSE comments, which clients ignore (an empty {@code data:} event would
 * reach them as an empty message). A resumable stream's events carry an {@code id}, and it starts
 * with a priming event: an id, a {@code retry} and empty data, which a 2025-11-25 client takes as a
 * place to resume from rather than as a message.
 */
public final class SseFrames {

  static final ByteString KEEP_ALIVE = ByteString.fromString(": keep-alive\n\n");

  private static final ByteString EVENT_END = ByteString.fromString("\n\n");

  private SseFrames() {}

  public static ByteString event(JsonNode json) {
    return named("message", json);
  }

  /** An event of type {@code type} (a word: no line breaks), its data one line of JSON. */
  public static ByteString named(String type, JsonNode json) {
    try {
      return ByteString.fromString("event: " + type + "\ndata: ")
          .concat(ByteString.fromArray(JsonRpcCodec.mapper().writeValueAsBytes(json)))
          .concat(EVENT_END);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A message event with an id ({@code eventId} null: none). */
  public static ByteString event(JsonNode json, String eventId) {
    return named("message", json, eventId);
  }

  /** {@link #named(String, JsonNode)} with an id ({@code eventId} null: none). */
  public static ByteString named(String type, JsonNode json, String eventId) {
    return eventId == null ? named(type, json) : idLine(eventId).concat(named(type, json));
  }

  /** The priming event of a resumable stream. */
  public static ByteString priming(String eventId, long retryMillis) {
    return idLine(eventId).concat(ByteString.fromString("retry: " + retryMillis + "\ndata:\n\n"));
  }

  private static ByteString idLine(String eventId) {
    return ByteString.fromString("id: " + eventId + "\n");
  }
}
