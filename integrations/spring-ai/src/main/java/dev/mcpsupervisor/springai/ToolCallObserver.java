package dev.mcpsupervisor.springai;

/** Told of every call through a {@link SupervisedToolCallback}, for meters. */
interface ToolCallObserver {

  ToolCallObserver NONE = (server, tool, nanos, outcome) -> {};

  /** Outcome values: the call answered, the tool reported an error, the call failed. */
  String SUCCESS = "success";

  String TOOL_ERROR = "tool_error";
  String FAILED = "failed";

  /** Called on the caller's thread once the call is over; must be cheap. */
  void completed(String server, String tool, long nanos, String outcome);
}
