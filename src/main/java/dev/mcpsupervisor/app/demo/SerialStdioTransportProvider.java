package dev.mcpsupervisor.app.demo;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The SDK's stdio transport with one sender at a time. Its outbound queue is a Reactor sink that
 * refuses a message emitted while another thread emits one (a list is answered on the reader
 * thread, a tool call on a worker thread): the message is dropped with "Failed to enqueue message"
 * and the client waits for an answer that never comes. Sends are serialised here.
 */
final class SerialStdioTransportProvider implements McpServerTransportProvider {

  private final StdioServerTransportProvider delegate;

  SerialStdioTransportProvider(StdioServerTransportProvider delegate) {
    this.delegate = delegate;
  }

  @Override
  public void setSessionFactory(McpServerSession.Factory sessionFactory) {
    delegate.setSessionFactory(transport -> sessionFactory.create(new SerialTransport(transport)));
  }

  @Override
  public Mono<Void> notifyClients(String method, Object params) {
    return delegate.notifyClients(method, params);
  }

  @Override
  public Mono<Void> closeGracefully() {
    return delegate.closeGracefully();
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public List<String> protocolVersions() {
    return delegate.protocolVersions();
  }

  private static final class SerialTransport implements McpServerTransport {

    private final McpServerTransport delegate;

    SerialTransport(McpServerTransport delegate) {
      this.delegate = delegate;
    }

    @Override
    public Mono<Void> sendMessage(JSONRPCMessage message) {
      // once the transport runs, subscribing enqueues at once: under the lock, one emitter at a
      // time
      return Mono.defer(
          () -> {
            synchronized (this) {
              return Mono.fromFuture(delegate.sendMessage(message).toFuture());
            }
          });
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
      return delegate.unmarshalFrom(data, typeRef);
    }

    @Override
    public Mono<Void> closeGracefully() {
      return delegate.closeGracefully();
    }

    @Override
    public void close() {
      delegate.close();
    }

    @Override
    public List<String> protocolVersions() {
      return delegate.protocolVersions();
    }
  }
}
