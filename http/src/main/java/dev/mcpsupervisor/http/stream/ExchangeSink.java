package dev.mcpsupervisor.http.stream;

/**
 * Where a downstream session sends the events of one HTTP exchange: the {@link Exchange} the route
 * opened. Safe to call from any thread; events after the terminal one are ignored.
 */
public interface ExchangeSink {

  void tell(Exchange.Event event);
}
