package dev.mcpsupervisor.app.cli;

import java.io.PrintWriter;

/** One command of the command line: what it accepts, and what it does with it. */
public interface Command {

  Syntax syntax();

  /**
   * Runs with the parsed {@code arguments}; answers the exit status. A {@link UsageException} is a
   * bad flag the parser could not see (two that do not go together, a value out of range).
   */
  int run(Arguments arguments, PrintWriter out, PrintWriter err) throws Exception;
}
