package dev.mcpsupervisor.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mcpsupervisor.upstream.SseEvent;
import dev.mcpsupervisor.upstream.SseEventParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Judges the HTTP answer to one tools/call: OK when the JSON-RPC response with the call's id
 * carries the call's unique payload in its text content, WRONG when a result arrives with another
 * id or another payload (an answer meant for another call or session), FAILED otherwise. Reads
 * answers sent as JSON or as SSE.
 */
public final class AnswerCheck {

  /** The outcome and, when not OK, why. */
  public record Verdict(Outcome outcome, String detail) {
    static final Verdict OK = new Verdict(Outcome.OK, "");
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_EVENT_CHARS = 16 * 1024 * 1024;

  private AnswerCheck() {}

  public static Verdict check(
      int status, String contentType, String body, long id, String payload) {
    if (status != 200) {
      return failed("HTTP " + status + ": " + abbreviated(body));
    }
    List<JsonNode> responses;
    try {
      responses = responses(contentType, body);
    } catch (IOException | RuntimeException e) {
      return failed("unreadable answer (" + e.getMessage() + "): " + abbreviated(body));
    }
    JsonNode own =
        responses.stream()
            .filter(response -> response.path("id").asLong(-1) == id)
            .findFirst()
            .orElse(null);
    if (own == null) {
      return responses.stream().anyMatch(response -> response.has("result"))
          ? new Verdict(Outcome.WRONG, "a result for another request id: " + abbreviated(body))
          : failed("no response with id " + id + ": " + abbreviated(body));
    }
    if (own.has("error")) {
      return failed("error " + own.get("error"));
    }
    JsonNode result = own.path("result");
    String text = text(result);
    if (text.contains(payload)) {
      return result.path("isError").asBoolean(false) ? failed("tool error: " + text) : Verdict.OK;
    }
    return new Verdict(Outcome.WRONG, "expected " + payload + ", got " + abbreviated(text));
  }

  /** The JSON-RPC responses (messages without a method) in a JSON or SSE body. */
  public static List<JsonNode> responses(String contentType, String body) throws IOException {
    List<JsonNode> messages = new ArrayList<>();
    if (contentType.startsWith("text/event-stream")) {
      List<SseEvent> events = new ArrayList<>();
      SseEventParser parser = new SseEventParser(events::add, MAX_EVENT_CHARS);
      body.lines().forEach(parser::line);
      parser.line("");
      for (SseEvent event : events) {
        messages.add(JSON.readTree(event.data()));
      }
    } else {
      JsonNode message = JSON.readTree(body);
      if (message.isArray()) {
        message.forEach(messages::add);
      } else {
        messages.add(message);
      }
    }
    messages.removeIf(message -> message.has("method"));
    return messages;
  }

  private static String text(JsonNode result) {
    StringBuilder text = new StringBuilder();
    result.path("content").forEach(item -> text.append(item.path("text").asText("")));
    return text.toString();
  }

  private static Verdict failed(String detail) {
    return new Verdict(Outcome.FAILED, detail);
  }

  private static String abbreviated(String text) {
    return text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }
}
