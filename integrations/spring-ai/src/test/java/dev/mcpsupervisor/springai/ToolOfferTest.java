package dev.mcpsupervisor.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.mcpsupervisor.actors.call.CallOptions.ClientCapability;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ToolOfferTest {

  private static final Set<String> INTERACTIVE = Set.of("sample");

  private final Logger logger = (Logger) LoggerFactory.getLogger(ToolOffer.class);
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

  @BeforeEach
  void capture() {
    lines.start();
    logger.addAppender(lines);
  }

  @AfterEach
  void release() {
    logger.detachAppender(lines);
  }

  @Test
  void withoutAHandlerAnInteractiveToolIsLeftOutAndThatIsLoggedOnce() {
    ToolOffer offer = ToolOffer.answering(Set.of(), false);

    assertTrue(offer.offers("fixture__echo", "echo", INTERACTIVE));
    assertFalse(offer.offers("fixture__sample", "sample", INTERACTIVE));
    assertFalse(offer.offers("fixture__sample", "sample", INTERACTIVE));

    assertEquals(1, lines.list.size());
    assertTrue(lines.list.get(0).getFormattedMessage().contains("fixture__sample"));
  }

  @Test
  void aSamplingOrElicitationHandlerOrThePropertyOffersIt() {
    assertTrue(
        ToolOffer.answering(Set.of(ClientCapability.SAMPLING), false)
            .offers("fixture__sample", "sample", INTERACTIVE));
    assertTrue(
        ToolOffer.answering(Set.of(ClientCapability.ELICITATION), false)
            .offers("fixture__sample", "sample", INTERACTIVE));
    assertTrue(
        ToolOffer.answering(Set.of(), true).offers("fixture__sample", "sample", INTERACTIVE));
    assertFalse(
        ToolOffer.answering(Set.of(ClientCapability.ROOTS), false)
            .offers("fixture__sample", "sample", INTERACTIVE));
    assertTrue(lines.list.size() == 1);
  }
}
