package dev.mcpsupervisor.http.routes;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.http.stream.McpResponses;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.envelope.EnvelopeRules;
import dev.mcpsupervisor.protocol.envelope.Violation;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.protocol.jsonrpc.ParsedPayload;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/**
 * The edge check of what a client posts, in both eras ({@link EnvelopeRules}): a malformed request
 * is answered here at once with its id (400 when it came alone, its own error inside a batch's
 * answer) and never reaches a downstream session or the supervisor; a malformed notification is
 * refused (alone) or dropped (in a batch); a malformed answer to a server request is refused to the
 * client, and passed on as an error under its id, so the upstream that asked gets an answer instead
 * of silence.
 */
final class EnvelopeScreen {

  /**
   * What the routes do with a payload after the screen.
   *
   * @param forward what goes on (the payload less what was refused, a malformed answer replaced by
   *     the error its upstream gets), or null when nothing does
   * @param refusal the HTTP answer when the POST is refused (given after {@code forward} was handed
   *     on, if anything was), else null
   * @param batchErrors answers a batch's answer gains for the malformed answers in it
   */
  record Screened(ParsedPayload forward, HttpResponse refusal, List<JsonRpcResponse> batchErrors) {

    static Screened passed(ParsedPayload payload) {
      return new Screened(payload, null, List.of());
    }
  }

  private final GatewayMetrics metrics;

  EnvelopeScreen(GatewayMetrics metrics) {
    this.metrics = metrics;
  }

  /**
   * The rules a POST is held to: a 2026-07-28 request's; else the version its header names, or an
   * initialize asks for; else (no version known at the edge) the session era's without the {@code
   * _meta} key naming rules.
   */
  static EnvelopeRules.Rules rulesOf(
      String versionHeader, boolean stateless, ParsedPayload payload) {
    if (stateless) {
      return EnvelopeRules.Rules.of(ProtocolVersions.V2026_07_28);
    }
    if (versionHeader != null) {
      return EnvelopeRules.Rules.of(versionHeader);
    }
    if (payload instanceof ParsedPayload.Single single
        && single.message() instanceof JsonRpcRequest call
        && McpMethods.INITIALIZE.equals(call.method())
        && call.params() != null) {
      JsonNode requested = call.params().get("protocolVersion");
      return EnvelopeRules.Rules.of(
          requested != null && requested.isTextual() ? requested.textValue() : null);
    }
    return EnvelopeRules.Rules.of(null);
  }

  Screened screen(ParsedPayload payload, EnvelopeRules.Rules rules) {
    if (payload instanceof ParsedPayload.Single single) {
      return single(single, rules);
    }
    if (payload instanceof ParsedPayload.Batch batch) {
      return batch(batch, rules);
    }
    return Screened.passed(payload);
  }

  private Screened single(ParsedPayload.Single single, EnvelopeRules.Rules rules) {
    JsonRpcMessage message = single.message();
    Optional<Violation> found = EnvelopeRules.check(message, rules);
    if (found.isEmpty()) {
      return Screened.passed(single);
    }
    Violation violation = found.get();
    HttpResponse refusal = refusal(violation, violation.answerTo(message), message);
    if (message instanceof JsonRpcResponse answer) {
      JsonRpcResponse upstreamError = EnvelopeRules.upstreamErrorFor(answer, violation);
      if (upstreamError != null) {
        return new Screened(new ParsedPayload.Single(upstreamError), refusal, List.of());
      }
    }
    return new Screened(null, refusal, List.of());
  }

  private Screened batch(ParsedPayload.Batch batch, EnvelopeRules.Rules rules) {
    List<ParsedPayload.Element> elements = null;
    List<JsonRpcResponse> batchErrors = new ArrayList<>();
    List<ParsedPayload.Element> given = batch.elements();
    for (int i = 0; i < given.size(); i++) {
      ParsedPayload.Element element = given.get(i);
      JsonRpcMessage message = element.message();
      Optional<Violation> found =
          message == null ? Optional.empty() : EnvelopeRules.check(message, rules);
      if (found.isEmpty()) {
        if (elements != null) {
          elements.add(element);
        }
        continue;
      }
      if (elements == null) {
        elements = new ArrayList<>(given.subList(0, i));
      }
      Violation violation = found.get();
      count(violation, message);
      if (message instanceof JsonRpcRequest) {
        elements.add(new ParsedPayload.Element(null, violation.answerTo(message)));
      } else if (message instanceof JsonRpcResponse answer) {
        batchErrors.add(violation.answerTo(message));
        JsonRpcResponse upstreamError = EnvelopeRules.upstreamErrorFor(answer, violation);
        if (upstreamError != null) {
          elements.add(new ParsedPayload.Element(upstreamError, null));
        }
      }
      // a malformed notification is dropped: no answer is owed for one
    }
    return elements == null
        ? Screened.passed(batch)
        : new Screened(new ParsedPayload.Batch(elements), null, List.copyOf(batchErrors));
  }

  private HttpResponse refusal(
      Violation violation, JsonRpcResponse answer, JsonRpcMessage message) {
    count(violation, message);
    return McpResponses.json(StatusCodes.BAD_REQUEST, JsonRpcCodec.toJson(answer));
  }

  private void count(Violation violation, JsonRpcMessage message) {
    if (message instanceof JsonRpcResponse) {
      metrics.rejected("invalid_client_answer");
    } else if (message instanceof JsonRpcNotification) {
      metrics.rejected("invalid_notification");
    } else {
      metrics.rejected(violation.code() == INVALID_PARAMS ? "invalid_params" : "invalid_request");
    }
  }
}
