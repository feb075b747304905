package dev.mcpsupervisor.springai;

import dev.mcpsupervisor.actors.call.CallOptions.ClientCapability;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which tools are offered to the model. A tool known to send requests of its own during a call
 * ({@code SupervisorClient.interactiveTools}: declared {@code interactiveTools} or learned) can
 * only fail where no handler answers sampling or elicitation, so it is left out, and that is logged
 * once per tool. The supervisor does not know which of the two a tool asks for: a handler of either
 * keeps every such tool offered.
 */
final class ToolOffer {

  private static final Logger log = LoggerFactory.getLogger(ToolOffer.class);

  private final boolean interactiveOffered;

  /** {@code <server>__<tool>} names already logged as left out. */
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  private ToolOffer(boolean interactiveOffered) {
    this.interactiveOffered = interactiveOffered;
  }

  /** Offers every tool. */
  static ToolOffer everything() {
    return new ToolOffer(true);
  }

  /**
   * Leaves out the interactive tools unless {@code answered} holds sampling or elicitation or
   * {@code offerUnanswerable} says to offer them all the same.
   */
  static ToolOffer answering(Set<ClientCapability> answered, boolean offerUnanswerable) {
    return new ToolOffer(
        offerUnanswerable
            || answered.contains(ClientCapability.SAMPLING)
            || answered.contains(ClientCapability.ELICITATION));
  }

  /** Whether {@code tool} ({@code qualifiedName} as the model sees it) is offered. */
  boolean offers(String qualifiedName, String tool, Set<String> interactiveTools) {
    if (interactiveOffered || !interactiveTools.contains(tool)) {
      return true;
    }
    if (reported.add(qualifiedName)) {
      log.info(
          "MCP tool {} is not offered to the model: it sends sampling or elicitation requests and no"
              + " handler answers them (mcp-supervisor.offer-unanswerable-tools=true offers it)",
          qualifiedName);
    }
    return false;
  }
}
