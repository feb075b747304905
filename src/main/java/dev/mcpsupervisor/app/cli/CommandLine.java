package dev.mcpsupervisor.app.cli;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;

/**
 * A program's commands: the main one, run when the first argument names no other, and the ones
 * named by their first argument ({@code mcp-supervisor bench URL}). Answers {@code --help} and
 * {@code --version} for each; a {@link UsageException} is one line on stderr and exit status 2.
 */
public record CommandLine(Command main, List<Command> commands, String version) {

  public static final int EXIT_FAILED = 1;
  public static final int EXIT_USAGE = 2;

  public CommandLine {
    commands = List.copyOf(commands);
  }

  /** Parses {@code args} and runs the command they name; answers the exit status. */
  public int execute(PrintWriter out, PrintWriter err, String... args) {
    Command command = main;
    List<String> rest = Arrays.asList(args);
    String program = main.syntax().name();
    for (Command each : commands) {
      if (args.length > 0 && each.syntax().name().equals(args[0])) {
        command = each;
        rest = rest.subList(1, rest.size());
        program += " " + each.syntax().name();
      }
    }
    try {
      Arguments arguments = command.syntax().parse(rest);
      if (arguments.has(Syntax.HELP.name())) {
        List<Syntax> listed =
            command == main ? commands.stream().map(Command::syntax).toList() : List.of();
        out.print(command.syntax().usage(program, listed));
        out.flush();
        return 0;
      }
      if (arguments.has(Syntax.VERSION.name())) {
        out.println(version);
        out.flush();
        return 0;
      }
      return command.run(arguments, out, err);
    } catch (UsageException e) {
      err.println(program + ": " + e.getMessage() + " (see --help)");
      return EXIT_USAGE;
    } catch (Exception e) {
      // what no command expects: its trace, for the report
      e.printStackTrace(err);
      return EXIT_FAILED;
    }
  }
}
