package dev.mcpsupervisor.app.stdio;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_REQUEST;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.PARSE_ERROR;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.UPSTREAM_SESSION_LOST;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.UPSTREAM_UNAVAILABLE;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ParamHeaders;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.upstream.BoundedLineReader;
import dev.mcpsupervisor.upstream.SseEventParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stdio MCP server that forwards to a Streamable HTTP MCP endpoint: every line its client writes
 * on stdin is POSTed there (an {@link Endpoint}: over the network, or to the gateway in this JVM),
 * and every message the endpoint answers or streams (a response, progress, logs, a server's
 * sampling or elicitation request, {@code list_changed} on the GET stream) is one line on stdout —
 * nothing else is. Both eras: a 2025-era client's {@code initialize} opens a session whose id the
 * bridge carries; a 2026-07-28 request (its {@code _meta} names the version) goes as it is, with
 * the headers that revision wants. It keeps the session going for its client: a POST stream that
 * breaks is resumed with {@code Last-Event-ID}, a session the endpoint no longer knows (404: the
 * gateway restarted) is initialized again with the client's own {@code initialize} and the request
 * sent again, and an endpoint that cannot be reached is retried for a while before the request is
 * answered with an error. Bad input gets a JSON-RPC error, never a hang.
 *
 * <p>{@code mcp-supervisor connect URL} is this bridge in front of a remote endpoint ({@link
 * HttpEndpoint}); {@code mcp-supervisor stdio} is this bridge in front of a private gateway in the
 * same JVM ({@link GatewayEndpoint}).
 */
final class StdioBridge {

  /** A line longer than this is refused (and read past) instead of read into memory. */
  static final int MAX_LINE_BYTES = 16 * 1024 * 1024;

  private static final Logger log = LoggerFactory.getLogger(StdioBridge.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SESSION_HEADER = "Mcp-Session-Id";
  private static final Duration LISTEN_RETRY = Duration.ofSeconds(1);
  private static final int RESUME_ATTEMPTS = 5;
  private static final Duration DELETE_TIMEOUT = Duration.ofSeconds(1);
  private static final String BRIDGE_ID_PREFIX = "mcp-supervisor-bridge-";

  private final Endpoint endpoint;
  private final Map<String, String> headers;
  private final OutputStream out;
  private final Duration reconnectFor;
  private final ExecutorService streams =
      Executors.newCachedThreadPool(
          runnable -> {
            Thread thread = new Thread(runnable, "mcp-supervisor-stdio-stream");
            thread.setDaemon(true);
            return thread;
          });
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong bridgeIds = new AtomicLong();

  /** The session the endpoint gave the client's initialize; null before, or for 2026-07-28. */
  private volatile String sessionId;

  /** The version the session negotiated, sent as MCP-Protocol-Version. */
  private volatile String protocolVersion;

  /** The client's own initialize, sent again should the endpoint forget the session. */
  private volatile ObjectNode initializeRequest;

  /** A re-initialize in progress: the requests that met a 404 meanwhile wait for it. */
  private final AtomicReference<CompletableFuture<Void>> reinitializing = new AtomicReference<>();

  /** The GET stream's current response, closed with the bridge. */
  private final AtomicReference<Stream<String>> listening = new AtomicReference<>();

  private final Object writing = new Object();

  /**
   * @param headers sent with every request (e.g. {@code Authorization})
   * @param reconnectFor how long a request retries an endpoint it cannot connect to
   */
  StdioBridge(
      Endpoint endpoint, Map<String, String> headers, OutputStream out, Duration reconnectFor) {
    this.endpoint = endpoint;
    this.headers = Map.copyOf(headers);
    this.out = out;
    this.reconnectFor = reconnectFor;
  }

  /**
   * Serves {@code in} until it ends, its client's process goes away, or a termination signal comes
   * (whichever first), then ends the session. Answers which of them it was.
   */
  public String serve(InputStream in, CompletableFuture<String> signalled) {
    CompletableFuture<String> ended = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try {
                read(in);
                ended.complete("stdin closed");
              } catch (IOException | UncheckedIOException e) {
                ended.complete("stdin failed: " + e.getMessage());
              }
            },
            "mcp-supervisor-stdin");
    reader.setDaemon(true);
    reader.start();
    ParentWatch.start(() -> ended.complete("its client process is gone"));
    String why =
        (String) CompletableFuture.anyOf(ended, signalled.thenApply(s -> "SIG" + s)).join();
    close();
    return why;
  }

  /** Reads and forwards every line of {@code in} until it ends. */
  void read(InputStream in) throws IOException {
    BoundedLineReader lines = new BoundedLineReader(in, MAX_LINE_BYTES);
    for (byte[] line = lines.readLine(); line != null; line = lines.readLine()) {
      if (line == BoundedLineReader.OVERSIZED) {
        writeError(
            NullNode.getInstance(),
            INVALID_REQUEST,
            "Invalid Request: a message of more than the "
                + MAX_LINE_BYTES
                + " bytes a line may have");
      } else {
        String text = new String(line, StandardCharsets.UTF_8);
        if (!text.isBlank()) {
          take(text);
        }
      }
    }
  }

  private void take(String text) {
    JsonNode parsed;
    try {
      parsed = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      writeError(NullNode.getInstance(), PARSE_ERROR, "Parse error: " + e.getOriginalMessage());
      return;
    }
    if (parsed != null && parsed.isArray()) {
      parsed.forEach(this::take);
    } else {
      take(parsed);
    }
  }

  private void take(JsonNode message) {
    if (!(message instanceof ObjectNode object)
        || !"2.0".equals(object.path("jsonrpc").asText())
        || !(object.has("method") || object.has("result") || object.has("error"))) {
      writeError(
          message == null ? NullNode.getInstance() : message.path("id"),
          INVALID_REQUEST,
          "Invalid Request: not a JSON-RPC 2.0 message");
      return;
    }
    String method = object.path("method").asText(null);
    if (McpMethods.INITIALIZE.equals(method) && object.has("id")) {
      initialize(object).join(); // everything after it needs the session it opens
    } else if (McpMethods.NOTIFICATION_INITIALIZED.equals(method)) {
      post(object).join();
      listen();
    } else {
      post(object);
    }
  }

  // ------------------------------------------------------------------------------------- session

  private CompletableFuture<Void> initialize(ObjectNode request) {
    initializeRequest = request.deepCopy();
    sessionId = null;
    return exchange(request, null, true).thenAccept(ignored -> {});
  }

  /**
   * The endpoint forgot the session: the client's initialize goes again (its answer is the
   * bridge's), then its initialized notification; one at a time however many requests met the 404.
   */
  private CompletableFuture<Void> reinitialize(String forgotten) {
    CompletableFuture<Void> mine = new CompletableFuture<>();
    CompletableFuture<Void> running = reinitializing.compareAndExchange(null, mine);
    if (running != null) {
      return running;
    }
    if (!forgotten.equals(sessionId)) { // another request did it already
      reinitializing.set(null);
      mine.complete(null);
      return mine;
    }
    ObjectNode again = initializeRequest.deepCopy();
    again.put("id", BRIDGE_ID_PREFIX + bridgeIds.incrementAndGet());
    log.info("the endpoint no longer knows the session: initializing again");
    sessionId = null;
    exchange(again, null, false)
        .thenCompose(
            answered -> {
              ObjectNode initialized = JSON.createObjectNode();
              initialized.put("jsonrpc", "2.0").put("method", McpMethods.NOTIFICATION_INITIALIZED);
              return exchange(initialized, sessionId, false).thenAccept(ignored -> {});
            })
        .whenComplete(
            (done, failure) -> {
              reinitializing.set(null);
              listen();
              mine.complete(null);
            });
    return mine;
  }

  /** The session's GET stream: server messages outside any request, resumed while it lasts. */
  private void listen() {
    String listened = sessionId;
    if (listened == null || closed.get()) {
      return;
    }
    CompletableFuture.runAsync(
        () -> {
          String lastEventId = null;
          while (!closed.get() && listened.equals(sessionId)) {
            try {
              Map<String, String> get = headers(sessionId);
              get.put("Accept", "text/event-stream");
              if (lastEventId != null) {
                get.put("Last-Event-ID", lastEventId);
              }
              Endpoint.Answer answer = endpoint.send("GET", get, null, null);
              if (answer.status() != 200) {
                answer.lines().close();
                return; // no GET stream offered (405), or the session is gone (404)
              }
              listening.set(answer.lines());
              lastEventId = relay(answer.lines(), null, lastEventId).lastEventId();
            } catch (IOException | UncheckedIOException e) {
              if (closed.get()) {
                return;
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              return;
            }
            LockSupport.parkNanos(LISTEN_RETRY.toNanos());
          }
        },
        streams);
  }

  // -------------------------------------------------------------------------------------- POSTs

  /** POSTs a client's message and relays what comes back; completes once its answer is out. */
  private CompletableFuture<Void> post(ObjectNode message) {
    return exchange(message, sessionId, true).thenAccept(ignored -> {});
  }

  /**
   * POSTs {@code message} on {@code session} (null: none) and relays the answer; a 404 of a known
   * session re-initializes it and sends the message once more (when {@code mayReinitialize}); a
   * refused connection is retried for {@link #reconnectFor}. A client's request always gets an
   * answer: the endpoint's, or an error saying why there is none.
   */
  private CompletableFuture<Boolean> exchange(
      ObjectNode message, String session, boolean mayReinitialize) {
    long deadline = System.nanoTime() + reconnectFor.toNanos();
    return CompletableFuture.supplyAsync(
            () -> {
              while (true) {
                try {
                  return endpoint.send("POST", postHeaders(message, session), bytes(message), null);
                } catch (ConnectException e) {
                  if (System.nanoTime() - deadline > 0 || closed.get()) {
                    throw new UncheckedIOException(e);
                  }
                  LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IllegalStateException(e);
                }
              }
            },
            streams)
        .thenCompose(response -> answered(message, session, mayReinitialize, response))
        .exceptionally(
            failure -> {
              if (message.has("method") && message.has("id") && !bridgeOwn(message)) {
                Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
                boolean unreachable = cause.getCause() instanceof ConnectException;
                writeError(
                    message.get("id"),
                    unreachable ? UPSTREAM_UNAVAILABLE : UPSTREAM_SESSION_LOST,
                    (unreachable ? "cannot reach " : "lost the connection to ")
                        + endpoint
                        + ": "
                        + cause.getMessage());
              }
              return false;
            });
  }

  private CompletableFuture<Boolean> answered(
      ObjectNode message, String session, boolean mayReinitialize, Endpoint.Answer response) {
    int status = response.status();
    if (status == 404 && session != null && mayReinitialize && initializeRequest != null) {
      response.lines().close();
      return reinitialize(session).thenCompose(again -> exchange(message, sessionId, false));
    }
    if (McpMethods.INITIALIZE.equals(message.path("method").asText())) {
      response.header().apply(SESSION_HEADER).ifPresent(id -> sessionId = id);
    }
    JsonNode id = message.has("method") ? message.get("id") : null;
    String type = response.header().apply("Content-Type").orElse("");
    if (status == 202 || (status == 200 && id == null && !type.startsWith("text/event-stream"))) {
      response.lines().close();
      return CompletableFuture.completedFuture(true);
    }
    if (type.startsWith("text/event-stream")) {
      Relayed relayed = relay(response.lines(), id, null);
      if (id != null && !relayed.answered() && relayed.lastEventId() != null) {
        return CompletableFuture.completedFuture(resume(id, relayed.lastEventId()));
      }
      return CompletableFuture.completedFuture(relayed.answered());
    }
    String body;
    try (Stream<String> lines = response.lines()) {
      body = String.join("\n", (Iterable<String>) lines::iterator);
    }
    relayBody(message, id, status, body);
    return CompletableFuture.completedFuture(true);
  }

  /** A JSON answer (or an HTTP error): its messages; an error without a JSON-RPC body, made one. */
  private void relayBody(ObjectNode message, JsonNode id, int status, String body) {
    JsonNode parsed = null;
    try {
      parsed = body.isBlank() ? null : JSON.readTree(body);
    } catch (JsonProcessingException e) {
      // not JSON: answered below
    }
    if (id == null) { // a notification or a response: nobody waits for an answer
      if (status >= 400) {
        log.warn("the endpoint refused a notification: HTTP {} {}", status, abbreviate(body));
      }
      return;
    }
    if (parsed instanceof ObjectNode object && (object.has("result") || object.has("error"))) {
      if (object.path("id").isNull()) {
        object.set("id", id); // an HTTP refusal names no request: it is this one's
      }
      write(object);
    } else if (parsed != null && parsed.isArray()) {
      parsed.forEach(this::write);
    } else {
      writeError(
          id,
          status >= 500 ? UPSTREAM_UNAVAILABLE : INVALID_REQUEST,
          "the endpoint answered HTTP " + status + (body.isBlank() ? "" : ": " + abbreviate(body)));
    }
  }

  /** Whether the bridge sent it itself (a re-initialize): its answer is not the client's. */
  private static boolean bridgeOwn(JsonNode message) {
    return message.path("id").asText("").startsWith(BRIDGE_ID_PREFIX);
  }

  /** A broken POST stream, resumed on the session's GET with Last-Event-ID until answered. */
  private boolean resume(JsonNode id, String lastEventId) {
    String last = lastEventId;
    for (int attempt = 0; attempt < RESUME_ATTEMPTS && !closed.get(); attempt++) {
      try {
        Map<String, String> get = headers(sessionId);
        get.put("Accept", "text/event-stream");
        get.put("Last-Event-ID", last);
        Endpoint.Answer response = endpoint.send("GET", get, null, null);
        if (response.status() != 200) {
          response.lines().close();
          break;
        }
        Relayed relayed = relay(response.lines(), id, last);
        if (relayed.answered()) {
          return true;
        }
        last = relayed.lastEventId();
      } catch (IOException | UncheckedIOException e) {
        LockSupport.parkNanos(LISTEN_RETRY.toNanos());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    writeError(
        id,
        UPSTREAM_SESSION_LOST,
        "the stream of this request broke and could not be resumed: send it again");
    return false;
  }

  /** What a stream relayed: whether the answer to its request came, and its last event id. */
  private record Relayed(boolean answered, String lastEventId) {}

  /** Writes the data of every SSE event of {@code lines} to stdout until the stream ends. */
  private Relayed relay(Stream<String> lines, JsonNode id, String lastEventId) {
    AtomicBoolean answered = new AtomicBoolean();
    SseEventParser events =
        new SseEventParser(
            event -> {
              if (relayEvent(event.data(), id)) {
                answered.set(true);
              }
            },
            Integer.MAX_VALUE);
    try (lines) {
      // iterated, not forEach: close() closes the stream from another thread, and this must end
      Iterator<String> each = lines.iterator();
      while (each.hasNext()) {
        events.line(each.next());
      }
    } catch (UncheckedIOException e) {
      // the stream broke: resumed by the caller
    }
    String last = events.dispatchedEventId();
    return new Relayed(answered.get(), last.isEmpty() ? lastEventId : last);
  }

  /** One event's data, written out; whether it was the answer to {@code id}. */
  private boolean relayEvent(String data, JsonNode id) {
    if (data.isEmpty()) {
      return false; // a priming event
    }
    try {
      JsonNode message = JSON.readTree(data);
      write(message);
      return id != null && !message.has("method") && id.equals(message.get("id"));
    } catch (JsonProcessingException e) {
      log.warn("the endpoint streamed an event that is not JSON: {}", abbreviate(data));
      return false;
    }
  }

  // ------------------------------------------------------------------------------------ helpers

  private Map<String, String> postHeaders(ObjectNode message, String session) {
    Map<String, String> post = headers(session);
    post.put("Content-Type", "application/json");
    post.put("Accept", "application/json, text/event-stream");
    JsonNode meta = message.path("params").path(StatelessEnvelope.META);
    if (session == null && meta.has(StatelessEnvelope.META_PROTOCOL_VERSION)) {
      // a 2026-07-28 request: its version and, mirrored in headers, its method and name
      String method = message.path("method").asText();
      post.put(
          StatelessEnvelope.PROTOCOL_VERSION_HEADER,
          meta.path(StatelessEnvelope.META_PROTOCOL_VERSION).asText());
      post.put(StatelessEnvelope.METHOD_HEADER, method);
      String name = StatelessEnvelope.nameOf(method, message.get("params"));
      if (name != null) {
        post.put(StatelessEnvelope.NAME_HEADER, ParamHeaders.encode(name));
      }
    }
    return post;
  }

  /** The headers of every request on {@code session} (null: none), in the order sent. */
  private Map<String, String> headers(String session) {
    Map<String, String> request = new LinkedHashMap<>(headers);
    if (session != null) {
      request.put(SESSION_HEADER, session);
    }
    String version = protocolVersion;
    if (version != null) {
      request.put(StatelessEnvelope.PROTOCOL_VERSION_HEADER, version);
    }
    return request;
  }

  private void writeError(JsonNode id, int code, String message) {
    ObjectNode error = JSON.createObjectNode();
    error.put("jsonrpc", "2.0");
    error.set("id", id == null || id.isMissingNode() ? NullNode.getInstance() : id);
    error.putObject("error").put("code", code).put("message", message);
    write(error);
  }

  /** One message, one line on stdout (not the answers to the bridge's own requests). */
  private void write(JsonNode message) {
    JsonNode negotiated = message.path("result").path("protocolVersion");
    if (negotiated.isTextual() && message.path("result").has("serverInfo")) {
      protocolVersion = negotiated.asText(); // an initialize result: the session's version
    }
    if (!message.has("method") && bridgeOwn(message)) {
      return;
    }
    byte[] line = bytes(message);
    synchronized (writing) {
      try {
        out.write(line);
        out.write('\n');
        out.flush();
      } catch (IOException e) {
        log.warn("stdout is closed: {}", e.getMessage());
      }
    }
  }

  private static byte[] bytes(JsonNode message) {
    try {
      return JSON.writeValueAsBytes(message);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String abbreviate(String text) {
    return text.length() <= 200 ? text : text.substring(0, 200) + "…";
  }

  /** Ends the session (DELETE, bounded) and the GET stream. */
  void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    Stream<String> stream = listening.get();
    if (stream != null) {
      stream.close();
    }
    String session = sessionId;
    if (session != null) {
      try {
        endpoint.send("DELETE", headers(session), null, DELETE_TIMEOUT).lines().close();
      } catch (IOException e) {
        log.debug("DELETE of the session failed: {}", e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    streams.shutdownNow();
    endpoint.close();
  }
}
