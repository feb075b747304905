package dev.mcpsupervisor.testkit;

import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.CreateMessageRequest;
import io.modelcontextprotocol.spec.McpSchema.ElicitFormRequest;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import io.modelcontextprotocol.spec.McpSchema.LoggingLevel;
import io.modelcontextprotocol.spec.McpSchema.LoggingMessageNotification;
import io.modelcontextprotocol.spec.McpSchema.ProgressNotification;
import io.modelcontextprotocol.spec.McpSchema.Role;
import io.modelcontextprotocol.spec.McpSchema.SamplingMessage;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One scripted tool: what each of its calls does, in order. Every method adds the next call's
 * behaviour; the last one repeats for every call after. So {@code answer("a")} answers "a" always,
 * {@code answer("a").exit(3).answer("b")} answers "a", then ends the process (exit status 3, never
 * answering), then answers "b" — from the restarted process, since calls are counted across
 * restarts. A tool with nothing scripted answers "ok". Its input schema accepts any object unless
 * {@link #inputSchema} says otherwise (it is published, not enforced).
 */
public final class ToolScript {

  /** What one call does. */
  @FunctionalInterface
  interface Step {
    Mono<CallToolResult> run(Call call);
  }

  /** A call being answered, with what a step may act on. */
  record Call(McpAsyncServerExchange exchange, CallToolRequest request, ScriptRuntime runtime) {
    Map<String, Object> arguments() {
      return request.arguments() == null ? Map.of() : request.arguments();
    }
  }

  /** Answered on the wire by the gate, before the server sees the call. */
  static final Step MALFORMED = call -> Mono.never();

  final String name;
  String description = "a scripted tool";
  Map<String, Object> inputSchema = Map.of("type", "object");
  boolean readOnly;
  boolean idempotent;
  final List<Step> steps = new ArrayList<>();

  ToolScript(String name) {
    this.name = name;
  }

  /** What tools/list says it does. */
  public ToolScript description(String text) {
    description = text;
    return this;
  }

  /**
   * What tools/list says it takes: a JSON schema such as {@code Map.of("type", "object",
   * "properties", Map.of("city", Map.of("type", "string")))}. Published only: calls are not checked
   * against it.
   */
  public ToolScript inputSchema(Map<String, Object> schema) {
    inputSchema = schema;
    return this;
  }

  /**
   * Published with {@code readOnlyHint}: a call of it lost with its session may be sent again (the
   * supervisor does, on the next session).
   */
  public ToolScript readOnly() {
    readOnly = true;
    return this;
  }

  /** Published with {@code idempotentHint}: like {@link #readOnly}, safe to send again. */
  public ToolScript idempotent() {
    idempotent = true;
    return this;
  }

  /** Answers {@code text}. */
  public ToolScript answer(String text) {
    return step(call -> Mono.just(text(text)));
  }

  /** Answers what {@code computed} makes of the call's arguments. */
  public ToolScript answer(Function<Map<String, Object>, String> computed) {
    return step(call -> Mono.fromSupplier(() -> text(computed.apply(call.arguments()))));
  }

  /** Answers each text in turn, one call each. */
  public ToolScript answers(String... texts) {
    for (String text : texts) {
      answer(text);
    }
    return this;
  }

  /** A result with {@code isError: true}: the tool's own failure. */
  public ToolScript error(String text) {
    return step(call -> Mono.just(errorResult(text)));
  }

  /** {@code times} tool errors in a row. */
  public ToolScript failures(int times, String text) {
    for (int i = 0; i < times; i++) {
      error(text);
    }
    return this;
  }

  /**
   * Ends the server without answering: a child process exits with {@code code}; a server in this
   * JVM drops its connections and serves again on the same port, as a restarted one would.
   */
  public ToolScript exit(int code) {
    return step(
        call -> Mono.<CallToolResult>never().doOnSubscribe(any -> call.runtime().exit(code)));
  }

  /** Never answers (until the client gives up or the server ends). */
  public ToolScript hang() {
    return step(call -> Mono.never());
  }

  /** Answers {@code text} after {@code delay}. */
  public ToolScript delay(Duration delay, String text) {
    return step(call -> Mono.delay(delay).thenReturn(text(text)));
  }

  /**
   * Answers with a response of the call's id that is not JSON-RPC: its {@code error} is a string,
   * not an object.
   */
  public ToolScript malformed() {
    return step(MALFORMED);
  }

  /**
   * Drops the connection without answering: over stdio the server closes its stdout (the process
   * lives on until its stdin ends); in this JVM it drops its connections and serves again.
   */
  public ToolScript drop() {
    return step(call -> Mono.<CallToolResult>never().doOnSubscribe(any -> call.runtime().drop()));
  }

  /**
   * Sends {@code steps} progress notifications (1..steps of steps) when the call has a progress
   * token, then answers {@code text}.
   */
  public ToolScript progress(int steps, String text) {
    return step(
        call -> {
          Object token = call.request().meta() == null ? null : call.request().progressToken();
          Flux<Void> notifications =
              token == null
                  ? Flux.empty()
                  : Flux.range(1, steps)
                      .concatMap(
                          step ->
                              call.exchange()
                                  .progressNotification(
                                      ProgressNotification.builder(token, step)
                                          .total((double) steps)
                                          .message("step " + step)
                                          .build()));
          return notifications.then(Mono.just(text(text)));
        });
  }

  /**
   * Sends one {@code notifications/message} at {@code level} ("debug", "info", "warning", ...) with
   * {@code message} as its data, then answers {@code message}.
   */
  public ToolScript log(String level, String message) {
    LoggingLevel logLevel = LoggingLevel.valueOf(level.toUpperCase(Locale.ROOT));
    return step(
        call ->
            call.exchange()
                .loggingNotification(
                    LoggingMessageNotification.builder(logLevel, message).logger(name).build())
                .thenReturn(text(message)));
  }

  /**
   * Asks the client to sample a message for {@code prompt} ({@code sampling/createMessage}) and
   * answers the text of its answer; the answer is recorded ({@link ScriptedServer#clientAnswers}).
   */
  public ToolScript sample(String prompt) {
    return step(
        call ->
            call.exchange()
                .createMessage(
                    CreateMessageRequest.builder(
                            List.of(
                                new SamplingMessage(
                                    Role.USER, TextContent.builder(prompt).build())),
                            100)
                        .build())
                .doOnNext(answer -> call.runtime().clientAnswered("sampling/createMessage", answer))
                .map(
                    answer ->
                        text(
                            answer.content() instanceof TextContent content
                                ? content.text()
                                : String.valueOf(answer.content()))));
  }

  /**
   * Asks the user through the client ({@code elicitation/create}, one string field "answer") and
   * answers {@code <action>:<answer>} ("accept:yes", "decline:null"); the answer is recorded.
   */
  public ToolScript elicit(String message) {
    Map<String, Object> schema =
        Map.of(
            "type",
            "object",
            "properties",
            Map.of("answer", Map.of("type", "string", "description", "The user's answer")));
    return step(
        call ->
            call.exchange()
                .createElicitation(ElicitFormRequest.builder(message, schema).build())
                .doOnNext(answer -> call.runtime().clientAnswered("elicitation/create", answer))
                .map(ToolScript::elicited));
  }

  /** Asks the client for its roots ({@code roots/list}) and answers their URIs, one a line. */
  public ToolScript roots() {
    return step(
        call ->
            call.exchange()
                .listRoots()
                .doOnNext(answer -> call.runtime().clientAnswered("roots/list", answer))
                .map(
                    answer ->
                        text(
                            answer.roots().stream()
                                .map(root -> root.uri())
                                .collect(Collectors.joining("\n")))));
  }

  /**
   * Publishes a tool {@code added} that answers {@code text} ({@code
   * notifications/tools/list_changed} to every client), then answers "added".
   */
  public ToolScript addTool(String added, String text) {
    return step(
        call ->
            call.runtime()
                .addTool(new ToolScript(added).answer(text))
                .thenReturn(text("added " + added)));
  }

  /** Withdraws the tool {@code removed} (with {@code list_changed}), then answers "removed". */
  public ToolScript removeTool(String removed) {
    return step(call -> call.runtime().removeTool(removed).thenReturn(text("removed " + removed)));
  }

  /**
   * Sends {@code notifications/resources/updated} for {@code uri} to its subscribers, then answers
   * "touched".
   */
  public ToolScript touch(String uri) {
    return step(call -> call.runtime().resourceUpdated(uri).thenReturn(text("touched " + uri)));
  }

  /** The step of the call numbered {@code index} (0 the first): the last one repeats. */
  Step step(int index) {
    if (steps.isEmpty()) {
      return call -> Mono.just(text("ok"));
    }
    return steps.get(Math.min(index, steps.size() - 1));
  }

  private ToolScript step(Step step) {
    steps.add(step);
    return this;
  }

  private static CallToolResult elicited(ElicitResult result) {
    Object answer = result.content() == null ? null : result.content().get("answer");
    return text(result.action().name().toLowerCase(Locale.ROOT) + ":" + answer);
  }

  static CallToolResult text(String text) {
    return CallToolResult.builder()
        .content(List.of(TextContent.builder(text).build()))
        .isError(false)
        .build();
  }

  private static CallToolResult errorResult(String text) {
    return CallToolResult.builder()
        .content(List.of(TextContent.builder(text).build()))
        .isError(true)
        .build();
  }
}
