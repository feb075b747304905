package dev.mcpsupervisor.testkit;

/** A scripted server's Streamable HTTP endpoint, wherever the server runs. */
interface HttpWire extends AutoCloseable {

  /** {@code http://127.0.0.1:<port>/mcp}. */
  String url();

  /** Stops serving (a child process ends). */
  @Override
  void close();
}
