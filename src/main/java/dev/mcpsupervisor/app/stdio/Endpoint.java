package dev.mcpsupervisor.app.stdio;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Where a {@link StdioBridge} sends its client's messages: a Streamable HTTP MCP endpoint, reached
 * over the network ({@link HttpEndpoint}: {@code connect}) or served by the gateway in this JVM
 * ({@link GatewayEndpoint}: {@code stdio}, whose messages then cross no socket and no HTTP codec).
 */
interface Endpoint {

  /**
   * The answer to one request.
   *
   * @param header a header's value by name ({@code Content-Type} included)
   * @param lines the body's lines as they come; closing it lets go of the rest
   */
  record Answer(int status, Function<String, Optional<String>> header, Stream<String> lines) {}

  /**
   * Sends one request and waits for its answer (its body goes on arriving in {@link Answer#lines}).
   *
   * @param body the request's body, or null for none
   * @param timeout how long the answer may take, or null: as long as it takes
   * @throws java.net.ConnectException when the endpoint cannot be reached (it may be restarting)
   */
  Answer send(String method, Map<String, String> headers, byte[] body, Duration timeout)
      throws IOException, InterruptedException;

  /** Lets go of what it holds; requests in flight end. */
  void close();
}
