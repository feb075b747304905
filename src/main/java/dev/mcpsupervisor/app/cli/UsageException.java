package dev.mcpsupervisor.app.cli;

/**
 * The command line is wrong (an unknown flag, a missing or malformed value): one line for the user,
 * exit status 2, no stack trace.
 */
public final class UsageException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public UsageException(String message) {
    super(message);
  }
}
