package dev.mcpsupervisor.testkit;

import java.util.Set;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives each test a {@link SupervisorTestKit}, closes it after the test, and fails the test when a
 * process started during it is still alive then ({@link ProcessLeaks}): such a process is killed,
 * by pid, and named in the failure.
 */
public final class SupervisorTestKitExtension
    implements BeforeEachCallback, AfterEachCallback, ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(SupervisorTestKitExtension.class);
  private static final String KIT = "kit";
  private static final String BEFORE = "processes-before";

  @Override
  public void beforeEach(ExtensionContext context) {
    ExtensionContext.Store store = context.getStore(NAMESPACE);
    store.put(BEFORE, ProcessLeaks.descendants());
    store.put(KIT, new SupervisorTestKit());
  }

  @Override
  public void afterEach(ExtensionContext context) {
    ExtensionContext.Store store = context.getStore(NAMESPACE);
    @SuppressWarnings("unchecked")
    Set<Long> before = store.remove(BEFORE, Set.class);
    store.remove(KIT, SupervisorTestKit.class).close();
    ProcessLeaks.assertNoneSince(before, ProcessLeaks.SETTLE);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == SupervisorTestKit.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context.getStore(NAMESPACE).get(KIT, SupervisorTestKit.class);
  }
}
