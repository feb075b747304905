package dev.mcpsupervisor.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A JUnit 5 test class (or method) with a fresh {@link SupervisorTestKit} per test, passed as a
 * parameter; after each test the kit is closed and the test fails if a process it started (or any
 * of theirs) is still alive.
 */
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(SupervisorTestKitExtension.class)
public @interface McpSupervisorTest {}
