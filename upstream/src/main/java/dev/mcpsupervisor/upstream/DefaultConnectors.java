package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamLimits;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/** The real connectors behind one {@link UpstreamConnector} that picks by the spec's transport. */
public final class DefaultConnectors implements UpstreamConnector {

  private final UpstreamConnector stdio;
  // HTTP clients start selector threads: built only when a spec needs one
  private final Lazy<UpstreamConnector> streamableHttp = new Lazy<>(StreamableHttpConnector::new);
  private final Lazy<UpstreamConnector> sse = new Lazy<>(SseConnector::new);

  private DefaultConnectors(UpstreamConnector stdio) {
    this.stdio = stdio;
  }

  /** The connector that dispatches on the spec's transport (stdio, Streamable HTTP, SSE). */
  public static UpstreamConnector create() {
    return new DefaultConnectors(new StdioConnector());
  }

  @Override
  public CompletionStage<UpstreamConnection> connect(ServerSpec spec, ConnectionListener listener) {
    return connect(spec, DEFAULT_LIMITS, listener);
  }

  @Override
  public CompletionStage<UpstreamConnection> connect(
      ServerSpec spec, UpstreamLimits limits, ConnectionListener listener) {
    UpstreamConnector connector;
    if (spec instanceof ServerSpec.Stdio) {
      connector = stdio;
    } else if (spec instanceof ServerSpec.StreamableHttp) {
      connector = streamableHttp.get();
    } else {
      connector = sse.get();
    }
    return connector.connect(spec, limits, listener);
  }

  private static final class Lazy<T> {
    private final Supplier<T> factory;
    private T value;

    Lazy(Supplier<T> factory) {
      this.factory = factory;
    }

    synchronized T get() {
      if (value == null) {
        value = factory.get();
      }
      return value;
    }
  }
}
